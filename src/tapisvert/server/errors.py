"""Refusals the server sends back: a code for programs, a catalogue message for people."""

from __future__ import annotations

from tapisvert.core.errors import TapisvertError


class ServerError(TapisvertError):
    """A request refused; ``status`` is its HTTP status when it came over HTTP."""

    def __init__(self, code: str, status: int = 400, **arguments: object) -> None:
        self.code = code
        self.status = status
        super().__init__(f"server.error.{code}", **arguments)

    def body(self, language: str) -> dict[str, str]:
        """The refusal as an HTTP response's JSON body."""
        return {"code": self.code, "message": self.render(language)}

    @classmethod
    def wrapping(cls, code: str, error: TapisvertError) -> ServerError:
        """A refusal that explains itself with an engine error's message."""
        return cls(code, reason=error.message)
