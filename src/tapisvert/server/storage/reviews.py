"""Reviews of a seat's decisions in a finished game, computed once and kept."""

from __future__ import annotations

import time

from sqlalchemy import insert, select

from tapisvert.server.storage.schema import reviews_table
from tapisvert.server.storage.writer import Writer


class ReviewStore:
    def __init__(self, writer: Writer) -> None:
        self._writer = writer

    async def load(self, table_id: int, seat: int) -> str | None:
        """The review as saved (JSON), if there is one."""
        query = select(reviews_table.c.review).where(
            (reviews_table.c.table_id == table_id) & (reviews_table.c.seat == seat)
        )
        return await self._writer.run(lambda c: c.execute(query).scalar())

    async def save(self, table_id: int, seat: int, review: str) -> None:
        values = {"table_id": table_id, "seat": seat, "review": review, "made_at": time.time()}
        await self._writer.run(lambda c: c.execute(insert(reviews_table).values(**values)))
