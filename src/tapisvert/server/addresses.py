"""What one address may hold and send, whatever the names and sockets it uses.

A connection's own rate (``Connection.within_rate``) and a person's quotas hold back one
socket and one name; an address can open many of each (guests cost nothing). So each
address also has a cap on the sockets it holds at once, greeted or not, and one message
rate shared by all its sockets: forty sockets together send what a few would. An address
whose sockets keep being cut for flooding is barred for a while, every socket of it closed.
People behind one address (a family, a school) share these bounds, which are set well above
what people playing and chatting need.
"""

from __future__ import annotations

import time
from collections.abc import Callable

from tapisvert.server.errors import ServerError
from tapisvert.server.quotas import Quotas


class TokenBucket:
    """``rate`` a second, in bursts of twice that."""

    def __init__(self, rate: float, clock: Callable[[], float] = time.monotonic) -> None:
        self._rate = rate
        self._clock = clock
        self._allowance = 2 * rate
        self._checked = clock()

    def take(self) -> bool:
        now = self._clock()
        elapsed, self._checked = now - self._checked, now
        self._allowance = min(2 * self._rate, self._allowance + elapsed * self._rate)
        if self._allowance < 1:
            return False
        self._allowance -= 1
        return True


class Addresses:
    """The sockets open from each address, their shared rate, and the addresses barred."""

    def __init__(
        self, quotas: Quotas, rate: float, clock: Callable[[], float] = time.monotonic
    ) -> None:
        """``rate``: one connection's messages a second (see ``QuotaSettings`` for the
        rest)."""
        self._quotas = quotas
        self._rate = rate * quotas.settings.address_rate_share
        self._clock = clock
        self._open: dict[str, tuple[int, TokenBucket]] = {}

    def open(self, address: str) -> TokenBucket:
        """Count a new socket from ``address``, or refuse it; its messages then draw on the
        bucket returned, shared by the address's sockets."""
        if self.barred(address):
            raise ServerError("address_barred", status=429)
        count, bucket = self._open.get(address, (0, None))
        limit = max(1, round(self._quotas.settings.sockets_per_address * self._quotas.scale))
        if count >= limit:
            raise ServerError("too_many_sockets_here", status=429, limit=limit)
        if bucket is None:
            bucket = TokenBucket(self._rate, self._clock)
        self._open[address] = (count + 1, bucket)
        return bucket

    def close(self, address: str) -> None:
        """A socket from ``address`` is gone."""
        count, bucket = self._open[address]
        if count <= 1:
            del self._open[address]
        else:
            self._open[address] = (count - 1, bucket)

    def flooded(self, address: str) -> bool:
        """A socket of ``address`` was cut for flooding; ``True`` if the address is now
        barred (its other sockets are to be closed)."""
        self._quotas.note("floods", address)
        return self.barred(address)

    def barred(self, address: str) -> bool:
        return self._quotas.spent("floods", address)

    def sockets(self, address: str) -> int:
        """The sockets ``address`` holds."""
        return self._open.get(address, (0, None))[0]
