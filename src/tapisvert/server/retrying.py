"""Trying again after an error, one way for the whole server (on ``tenacity``): the waits
double from a first to a longest; before each, the log may say what failed and when it is
tried again; and the attempts may be given up, quietly, once a condition holds (the node
stops, the table moved).

Each call of a ``Retrying`` starts from the first wait again: a loop that runs for ever
retries each of its rounds, so that a failure long after another waits the first wait.
"""

from __future__ import annotations

import logging
from collections.abc import Awaitable, Callable
from typing import Any, ParamSpec, TypeVar

from tenacity import (
    AsyncRetrying,
    RetryCallState,
    Retrying,
    retry_if_exception_type,
    stop_never,
    wait_exponential,
)

Errors = type[BaseException] | tuple[type[BaseException], ...]
Failed = Callable[[BaseException, float], None]
"""Told each error that is tried again, with the seconds until the next attempt."""
Parameters = ParamSpec("Parameters")
Result = TypeVar("Result")


def _policy(
    errors: Errors,
    first: float,
    longest: float,
    failed: Failed | None,
    until: Callable[[], bool] | None,
    given_up: object = None,
) -> dict[str, Any]:
    """What every retrying call shares: what is retried, the waits, who is told of a
    failure, and when to give up (the call then answers ``given_up``)."""

    def before_sleep(attempt: RetryCallState) -> None:
        if failed is not None and attempt.outcome is not None and attempt.next_action:
            error = attempt.outcome.exception()
            if error is not None:
                failed(error, attempt.next_action.sleep)

    return {
        "retry": retry_if_exception_type(errors),
        "wait": wait_exponential(multiplier=first, max=longest),
        "stop": stop_never if until is None else (lambda _: until()),
        "before_sleep": before_sleep,
        "retry_error_callback": lambda _: given_up,
    }


def logged(logger: logging.Logger, what: str) -> Failed:
    """Says in the log that ``what`` failed, and when it is tried again."""

    def failed(error: BaseException, wait: float) -> None:
        logger.error("%s failed: %r; trying again in %.1f s", what, error, wait)

    return failed


def retrying(
    errors: Errors,
    first: float,
    longest: float,
    failed: Failed | None = None,
    until: Callable[[], bool] | None = None,
) -> Retrying:
    """Calls (``retrying(...)(work, *arguments)``) tried again after ``errors``, waiting
    ``first`` seconds, then twice as long each time up to ``longest``; ``failed``: told of
    each error (see ``logged``); ``until``: give up once it is true (the call answers
    ``None``)."""
    return Retrying(**_policy(errors, first, longest, failed, until))


def retrying_async(
    errors: Errors,
    first: float,
    longest: float,
    failed: Failed | None = None,
    until: Callable[[], bool] | None = None,
) -> AsyncRetrying:
    """As ``retrying``, for coroutines, waiting on the event loop."""
    return AsyncRetrying(**_policy(errors, first, longest, failed, until))


_GIVEN_UP = object()


class Recovering:
    """Calls to a service that may be away for a while (Redis), tried again as
    ``retrying_async`` does and logged; the last error while it fails (``trouble``), and a
    line in the log when it works again."""

    def __init__(
        self,
        logger: logging.Logger,
        what: str,
        errors: Errors,
        first: float,
        longest: float,
        until: Callable[[], bool] | None = None,
    ) -> None:
        self.logger = logger
        self.what = what
        self.trouble: BaseException | None = None
        self._log = logged(logger, what)
        policy = _policy(errors, first, longest, self._failed, until, _GIVEN_UP)
        self._retrying = AsyncRetrying(**policy)

    def _failed(self, error: BaseException, wait: float) -> None:
        self.trouble = error
        self._log(error, wait)

    async def __call__(
        self,
        work: Callable[Parameters, Awaitable[Result]],
        *arguments: Parameters.args,
        **named: Parameters.kwargs,
    ) -> None:
        """Do ``work`` until it works, or until the attempts are given up."""
        if await self._retrying(work, *arguments, **named) is _GIVEN_UP:
            return
        if self.trouble is not None:
            self.logger.warning("%s works again", self.what)
            self.trouble = None
