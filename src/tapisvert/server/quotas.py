"""How much one person or one address may ask for, whatever the connection it comes by.

A connection's own token bucket (``Connection.within_rate``) holds back one socket; these
quotas hold back the person with many sockets, and the address with many names. They
count in moving windows, in the hub's memory; the quotas are written as the ``limits``
library reads them ("20/10 seconds").

The windows are kept here rather than in ``limits``' own memory storage: while quotas are
being counted, that storage starts a thread every 10 ms to walk every key it holds (an
address's guests for a minute, each person's connections for a minute and tables for an
hour), holding the interpreter meanwhile. With the keys of 1,000 people one walk took
6 ms here (1.7 ms with 400): with people chatting, well over half a core, taken from the
event loop in slices. A window here forgets its old hits when it is next counted, and
keys left alone are dropped once a minute.
"""

from __future__ import annotations

import math
import time
from collections import deque
from collections.abc import Callable
from dataclasses import dataclass

from limits import parse

from tapisvert.server.errors import ServerError

SWEEP_SECONDS = 60.0
"""How often keys whose windows emptied are forgotten."""


@dataclass(frozen=True)
class QuotaSettings:
    guests: str = "60/minute"
    """Guests one address may create."""
    logins_per_address: str = "30/minute"
    """Attempts to sign in (the right password or not) from one address."""
    failures_per_address: str = "30/hour"
    """Wrong passwords, for any names, from one address before it may not try again."""
    failures_per_address_and_name: str = "5/15 minutes"
    """Wrong passwords for one name from one address before that address may not try it
    again; other addresses still may."""
    failures_per_name: str = "10/15 minutes"
    """Wrong passwords for one name, from anywhere, beyond which attempts from addresses
    its owner has not signed in from take turns (slowed, never refused: someone else's
    failures must not lock an account's owner out)."""
    signed_in_from: str = "1/30 days"
    """How long an address an account signed in from counts as its owner's (the amount is
    not used: nothing is refused by it)."""
    accounts: str = "10/hour"
    """Accounts one address may create."""
    tables: str = "30/hour"
    """Tables one person may create, rematches included."""
    tables_per_address: str = "60/hour"
    """Tables the people of one address may create together."""
    chat: str = "20/10 seconds"
    """Chat lines one person may send, on all their connections together."""
    sockets: int = 8
    """Connections one person may hold at once."""
    reviews: str = "10/hour"
    """Reviews one address may start (each takes the review worker for up to a minute)."""
    reviews_of_others: str = "5/day"
    """Reviews of games they did not play one account may start."""
    sockets_per_address: int = 32
    """Sockets one address may hold at once, before and after their hello (see
    ``addresses``)."""
    address_rate_share: float = 3.0
    """Messages a second all the sockets of one address may send together, as a multiple
    of one connection's rate (bursts of twice that)."""
    floods: str = "3/minute"
    """Sockets of one address cut for flooding before the address is barred; it stays
    barred until the window holds fewer."""
    listings: str = "120/minute"
    """Rooms' listings one address may ask for over HTTP (with several nodes, each is a
    query of the database)."""
    data_downloads: str = "10/hour"
    """Downloads of their own data one account may ask for (each reads all their games)."""
    replays: str = "30/minute"
    """Replays of finished games one address may ask for (those kept cost little; a new
    one costs its worker up to a second)."""
    exports: str = "6/hour"
    """Exports of the open database of games one address may ask for (each reads every
    game of a game since a day)."""
    connections: str = "30/minute"
    """Connections one person may open: one cut off for flooding does not come straight
    back for more."""
    reports: str = "10/hour"
    """Reports one person may make (besides ``reports.OPEN_REPORTS`` waiting at once)."""
    messages: str = "20/minute"
    """Private messages (and invitations) one person may send."""
    friend_requests: str = "20/day"
    """Friend requests one person may send."""


class MovingWindows:
    """For each key, the times of its hits in the last ``seconds`` it is counted over."""

    def __init__(self, clock: Callable[[], float] = time.monotonic) -> None:
        self._clock = clock
        self._hits: dict[tuple[str, ...], tuple[float, deque[float]]] = {}
        self._sweep_at = clock() + SWEEP_SECONDS

    def hit(self, key: tuple[str, ...], amount: int, seconds: float) -> bool:
        """Count one hit for ``key`` unless ``amount`` were counted in the last ``seconds``."""
        hits = self._window(key, seconds)
        if len(hits) >= amount:
            return False
        hits.append(self._clock())
        return True

    def add(self, key: tuple[str, ...], seconds: float) -> None:
        """Count one hit for ``key``, whatever it held."""
        self._window(key, seconds).append(self._clock())

    def wait(self, key: tuple[str, ...], seconds: float) -> float:
        """Seconds until ``key``'s oldest hit leaves its window."""
        hits = self._window(key, seconds)
        return max(0.0, hits[0] + seconds - self._clock()) if hits else 0.0

    def count(self, key: tuple[str, ...], seconds: float) -> int:
        """The hits counted for ``key`` in the last ``seconds``."""
        return len(self._window(key, seconds)) if key in self._hits else 0

    def _window(self, key: tuple[str, ...], seconds: float) -> deque[float]:
        """``key``'s hits, those older than ``seconds`` dropped."""
        now = self._clock()
        if now >= self._sweep_at:
            self._sweep(now)
        held = self._hits.get(key)
        if held is None:
            held = self._hits[key] = (seconds, deque())
        hits = held[1]
        while hits and hits[0] <= now - seconds:
            hits.popleft()
        return hits

    def __len__(self) -> int:
        """The keys held."""
        return len(self._hits)

    def _sweep(self, now: float) -> None:
        self._hits = {
            key: held for key, held in self._hits.items() if held[1] and held[1][-1] > now - held[0]
        }
        self._sweep_at = now + SWEEP_SECONDS


class Quotas:
    """Counts what each person and address asked for, and refuses what goes beyond."""

    def __init__(
        self,
        settings: QuotaSettings,
        scale: float = 1.0,
        clock: Callable[[], float] = time.monotonic,
    ) -> None:
        """``scale`` multiplies every quota: a server under a load test lifts them all."""
        self.settings = settings
        self.scale = scale
        self._windows = MovingWindows(clock)
        self._limits: dict[str, tuple[int, float]] = {}

    def take(self, quota: str, *keys: object) -> None:
        """Count one ``quota`` (a field of the settings) for ``keys``, or refuse with 429."""
        key = (quota, *map(str, keys))
        amount, seconds = self._limit(quota)
        if not self._windows.hit(key, amount, seconds):
            wait = self._windows.wait(key, seconds)
            raise ServerError(
                "rate_limited", status=429, key=f"server.quota.{quota}", wait=_duration(wait)
            )

    def note(self, quota: str, *keys: object) -> None:
        """Count one ``quota`` for ``keys`` (a failure, say) without refusing anything."""
        self._windows.add((quota, *map(str, keys)), self._limit(quota)[1])

    def spent(self, quota: str, *keys: object) -> bool:
        """Whether ``keys`` have used all of ``quota``: nothing is counted."""
        amount, seconds = self._limit(quota)
        return self._windows.count((quota, *map(str, keys)), seconds) >= amount

    def counted(self, quota: str, *keys: object) -> int:
        """How much of ``quota`` ``keys`` used in its window: nothing is counted."""
        return self._windows.count((quota, *map(str, keys)), self._limit(quota)[1])

    def _limit(self, quota: str) -> tuple[int, float]:
        """``quota``'s amount (scaled) and window in seconds."""
        limit = self._limits.get(quota)
        if limit is None:
            given = parse(getattr(self.settings, quota))
            limit = self._limits[quota] = (
                max(1, round(given.amount * self.scale)),
                float(given.get_expiry()),
            )
        return limit

    def sockets(self) -> int:
        """Connections one person may hold at once."""
        return max(1, round(self.settings.sockets * self.scale))


def _duration(seconds: float) -> str:
    """A wait as people read it: seconds, minutes or hours, rounded up."""
    if seconds <= 90:
        return f"{max(1, math.ceil(seconds))} s"
    if seconds <= 90 * 60:
        return f"{math.ceil(seconds / 60)} min"
    return f"{math.ceil(seconds / 3600)} h"
