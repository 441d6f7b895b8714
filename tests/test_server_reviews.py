"""Reviews of finished games through the server: computed in a worker, stored, the same as
the command line's."""

from __future__ import annotations

import asyncio
import time
from pathlib import Path

from sqlalchemy import inspect

from tapisvert.core.records import parse_record
from tapisvert.review import review_as_json
from tapisvert.server.reviews import REVIEW_SAMPLES, REVIEW_SEED

from server_support import Player, Server, engine_for, migrate, serving


def finished_game(server: Server) -> int:
    """A one-round Wizard game of a person and two easy bots, played to its end."""
    token = server.guest("reviewed")
    created = server.call(
        token, "POST", "/api/tables", game="wizard", players=3, options={"rounds": "1"}
    )
    table = int(created.json()["table"])
    for _ in range(2):
        server.call(token, "POST", f"/api/tables/{table}/bots", level="easy").raise_for_status()
    server.call(token, "POST", f"/api/tables/{table}/start").raise_for_status()
    asyncio.run(Player(server, token, seed=5).play({table}))
    return table


def review_when_ready(server: Server, table: int, seat: int) -> dict[str, object]:
    deadline = time.monotonic() + 120
    while time.monotonic() < deadline:
        answer = server.http.get(f"{server.url}/api/tables/{table}/review", params={"seat": seat})
        if answer.status_code == 200:
            return dict(answer.json())
        assert answer.status_code == 202 and answer.json() == {"status": "computing"}
        time.sleep(0.2)
    raise AssertionError("no review within 120 s")


def test_a_finished_game_is_reviewed_once_and_as_on_the_command_line(tmp_path: Path) -> None:
    with serving(tmp_path) as server:
        table = finished_game(server)
        first = server.http.get(f"{server.url}/api/tables/{table}/review", params={"seat": 0})
        assert first.status_code == 202
        review = review_when_ready(server, table, 0)
        record = server.http.get(f"{server.url}/api/tables/{table}/record").text
    expected = review_as_json(record, 0, REVIEW_SAMPLES, REVIEW_SEED)
    assert review == {"status": "ready", **expected}
    decisions = review["decisions"]
    own_steps = [step for step in parse_record(record).steps() if step.actor == 0]
    # a bid and a card, and a trump to name when the person dealt and turned up a wizard
    assert len(own_steps) in (2, 3)
    assert isinstance(decisions, list) and len(decisions) == len(own_steps)
    assert [decision["move"] for decision in decisions] == sorted(
        decision["move"] for decision in decisions
    )
    with serving(tmp_path) as again:  # kept in the database: ready at once
        stored = again.http.get(f"{again.url}/api/tables/{table}/review", params={"seat": 0})
        assert stored.status_code == 200 and stored.json() == review


def test_a_review_is_refused_for_a_running_game_or_a_missing_seat(tmp_path: Path) -> None:
    with serving(tmp_path) as server:
        token = server.guest("early")
        created = server.call(token, "POST", "/api/tables", game="luz", players=3)
        table = int(created.json()["table"])
        running = server.http.get(f"{server.url}/api/tables/{table}/review", params={"seat": 0})
        assert running.status_code == 409 and running.json()["code"] == "not_finished"
        table = finished_game(server)
        missing = server.http.get(f"{server.url}/api/tables/{table}/review", params={"seat": 5})
        assert missing.status_code == 400
        assert missing.json()["message"] == "there is no seat 6: this table has seats 1 to 3"


def test_migration_0005_adds_and_removes_the_reviews(database_url: str) -> None:
    migrate(database_url, "head")
    engine = engine_for(database_url)
    assert {"table_id", "seat", "review", "made_at"} == {
        column["name"] for column in inspect(engine).get_columns("reviews")
    }
    migrate(database_url, "0004", down=True)
    assert "reviews" not in inspect(engine).get_table_names()
    engine.dispose()
