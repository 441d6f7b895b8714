"""Reviews of finished games through the server: computed in a worker, stored, the same as
the command line's."""

from __future__ import annotations

import time
from concurrent.futures import ThreadPoolExecutor
from pathlib import Path

import httpx
import pytest
from sqlalchemy import inspect

from tapisvert.core.records import parse_record
from tapisvert.review import review_as_json
from tapisvert.server.reviews import REVIEW_SAMPLES, REVIEW_SEED

from server_support import Server, engine_for, migrate, one_round_game, serving


def finished_game(server: Server, name: str = "reviewed") -> tuple[int, str]:
    """A short game of a new guest's, played to its end, and the guest's token."""
    token = server.guest(name)
    return one_round_game(server, token), token


def ask_review(server: Server, token: str | None, table: int, seat: int) -> httpx.Response:
    headers = {} if token is None else {"Authorization": f"Bearer {token}"}
    return server.http.get(
        f"{server.url}/api/tables/{table}/review", params={"seat": seat}, headers=headers
    )


def review_when_ready(server: Server, token: str, table: int, seat: int) -> dict[str, object]:
    deadline = time.monotonic() + 120
    while time.monotonic() < deadline:
        answer = ask_review(server, token, table, seat)
        if answer.status_code == 200:
            return dict(answer.json())
        assert answer.status_code == 202 and answer.json() == {"status": "computing"}
        time.sleep(0.2)
    raise AssertionError("no review within 120 s")


@pytest.mark.slow
def test_a_finished_game_is_reviewed_once_and_as_on_the_command_line(tmp_path: Path) -> None:
    with serving(tmp_path) as server:
        table, token = finished_game(server)
        first = ask_review(server, token, table, 0)
        assert first.status_code == 202
        review = review_when_ready(server, token, table, 0)
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
    with serving(tmp_path) as again:  # kept in the database: ready at once, for anyone
        stored = ask_review(again, again.guest("later"), table, 0)
        assert stored.status_code == 200 and stored.json() == review


def test_a_review_is_refused_for_a_running_game_or_a_missing_seat(tmp_path: Path) -> None:
    with serving(tmp_path) as server:
        token = server.guest("early")
        created = server.call(token, "POST", "/api/tables", game="luz", players=3)
        table = int(created.json()["table"])
        running = ask_review(server, token, table, 0)
        assert running.status_code == 409 and running.json()["code"] == "not_finished"
        table, token = finished_game(server)
        missing = ask_review(server, token, table, 5)
        assert missing.status_code == 400
        assert missing.json()["message"] == "there is no seat 6: this table has seats 1 to 3"


def register(server: Server, name: str) -> str:
    answer = server.http.post(
        f"{server.url}/api/register", json={"name": name, "password": "secret-" + name}
    )
    answer.raise_for_status()
    return str(answer.json()["token"])


def test_who_may_start_a_review_and_how_many_wait(tmp_path: Path) -> None:
    """Reviews take the worker for seconds each: once, anyone could queue them by the dozen."""
    with serving(tmp_path) as server:
        first, player = finished_game(server, "player-one")
        second, _ = finished_game(server, "player-two")
        accounts = [register(server, f"reviewer-{index}") for index in range(4)]
        anonymous = ask_review(server, None, first, 0)
        assert anonymous.status_code == 401
        outsider = ask_review(server, server.guest("outsider"), first, 0)
        assert outsider.status_code == 403 and outsider.json()["code"] == "review_not_yours"
        assert "register" in outsider.json()["message"]
        assert ask_review(server, player, first, 1).status_code == 202  # any seat of my game
        again = ask_review(server, player, first, 2)  # one at a time
        assert again.status_code == 429 and again.json()["code"] == "review_under_way"
        assert again.json()["message"].startswith(f"your review of table {first}, seat 2")
        assert ask_review(server, player, first, 1).status_code == 202  # the same: under way
        asked = [
            ask_review(server, token, table, seat)
            for token, (table, seat) in zip(
                accounts, [(first, 0), (second, 0), (second, 1), (second, 2)], strict=True
            )
        ]
        assert [answer.status_code for answer in asked] == [202, 202, 202, 503]
        assert asked[-1].json()["code"] == "reviews_busy"
        review_when_ready(server, player, first, 1)


def test_reviews_asked_at_once_are_still_one_at_a_time(tmp_path: Path) -> None:
    with serving(tmp_path) as server:
        table, player = finished_game(server, "hasty")
        with ThreadPoolExecutor(3) as asking:
            together = list(
                asking.map(lambda seat: ask_review(server, player, table, seat), range(3))
            )
    assert sorted(answer.status_code for answer in together) == [202, 429, 429]


def test_migration_0005_adds_and_removes_the_reviews(database_url: str) -> None:
    migrate(database_url, "head")
    engine = engine_for(database_url)
    assert {"table_id", "seat", "review", "made_at"} == {
        column["name"] for column in inspect(engine).get_columns("reviews")
    }
    migrate(database_url, "0004", down=True)
    assert "reviews" not in inspect(engine).get_table_names()
    engine.dispose()
