"""How much one person or one address may ask for, whatever the connection it comes by.

A connection's own token bucket (``Connection.within_rate``) holds back one socket; these
quotas hold back the person with many sockets, and the address with many names. They
count in moving windows (the ``limits`` library), in the hub's memory.
"""

from __future__ import annotations

from dataclasses import dataclass

from limits import RateLimitItem, parse
from limits.storage import MemoryStorage
from limits.strategies import MovingWindowRateLimiter

from tapisvert.server.errors import ServerError


@dataclass(frozen=True)
class QuotaSettings:
    guests: str = "60/minute"
    """Guests one address may create."""
    logins_per_address: str = "30/minute"
    logins_per_name: str = "10/minute"
    """Attempts to sign in (the right password or not), from one address, and to one name."""
    accounts: str = "10/hour"
    """Accounts one address may create."""
    tables: str = "30/hour"
    """Tables one person may create."""
    chat: str = "20/10 seconds"
    """Chat lines one person may send, on all their connections together."""
    sockets: int = 8
    """Connections one person may hold at once."""
    connections: str = "30/minute"
    """Connections one person may open: one cut off for flooding does not come straight
    back for more."""


class Quotas:
    """Counts what each person and address asked for, and refuses what goes beyond."""

    def __init__(self, settings: QuotaSettings, scale: float = 1.0) -> None:
        """``scale`` multiplies every quota: a server under a load test lifts them all."""
        self.settings = settings
        self.scale = scale
        self._limiter = MovingWindowRateLimiter(MemoryStorage())
        self._items: dict[str, RateLimitItem] = {}

    def take(self, quota: str, *keys: object) -> None:
        """Count one ``quota`` (a field of the settings) for ``keys``, or refuse with 429."""
        item = self._items.get(quota)
        if item is None:
            given = parse(getattr(self.settings, quota))
            amount = max(1, round(given.amount * self.scale))
            item = self._items[quota] = type(given)(amount, given.multiples)
        if not self._limiter.hit(item, quota, *map(str, keys)):
            raise ServerError("rate_limited", status=429)

    def sockets(self) -> int:
        """Connections one person may hold at once."""
        return max(1, round(self.settings.sockets * self.scale))
