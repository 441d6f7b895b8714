"""A refused request's answer: its status, and its code and message in the asker's language."""

from __future__ import annotations

from fastapi import Request
from fastapi.exceptions import RequestValidationError
from fastapi.responses import JSONResponse

from tapisvert.i18n import accepted_language
from tapisvert.server.errors import ServerError, malformed


async def refused(request: Request, error: ServerError) -> JSONResponse:
    language = accepted_language(request.headers.get("accept-language"))
    return JSONResponse(error.body(language), status_code=error.status)


async def malformed_request(request: Request, error: RequestValidationError) -> JSONResponse:
    return await refused(request, malformed(error.errors()))
