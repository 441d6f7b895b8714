"""The review of a finished game: what each of a seat's decisions cost, from its own view."""

from __future__ import annotations

import os
import random
import subprocess
import sys
from pathlib import Path

import pytest

from tapisvert import load_game
from tapisvert.bots import make_bot
from tapisvert.bots.match import play_match
from tapisvert.core.records import parse_record, record_of
from tapisvert.review import review_game

from conftest import wizard_position


def wizard_bid_of_nothing_with_a_wizard() -> str:
    """One card each; P1 holds a Wizard, which takes the trick whatever the others hold, and
    bids 0: it misses by one (−10) where a bid of 1 makes 30."""
    state = wizard_position(
        [["W"], ["B5"], ["R3"]], turned="G2", bids=[0, 0, 1], plays=["W", "B5", "R3"]
    )
    assert state.is_terminal()
    return record_of(state).to_text()


def test_a_bid_the_hand_cannot_make_costs_what_it_loses() -> None:
    record = parse_record(wizard_bid_of_nothing_with_a_wizard())
    first, play = review_game(record, seat=0, samples=20)
    assert (first.played.text, first.played.expected) == ("bid 0", -10.0)
    assert (first.best.text, first.best.expected) == ("bid 1", 30.0)
    assert first.cost == 40.0
    assert play.played.text == "play W" and play.cost == 0.0  # the only card


def test_the_same_seed_gives_the_same_review() -> None:
    game = load_game("luz", players=3)
    final = play_match(
        game, [make_bot("easy", game), make_bot("random", game), make_bot("easy", game)], 5
    )
    record = parse_record(record_of(final).to_text())
    once = review_game(record, seat=1, samples=3, seed=9)
    again = review_game(record, seat=1, samples=3, seed=9)
    assert once == again
    assert len(once) == 4 * 10 + 4  # ten cards and a bet in each of the four deals
    assert all(
        decision.cost >= 0 and decision.best.expected >= decision.played.expected
        for decision in once
    )


def test_many_options_are_narrowed_to_the_played_one_and_a_few_others() -> None:
    game = load_game("fzzzt", players=2)
    final = play_match(game, [make_bot("random", game), make_bot("easy", game)], 2)
    decisions = review_game(parse_record(record_of(final).to_text()), seat=0, samples=1)
    assert max(len(decision.options) for decision in decisions) <= 12
    assert all(decision.played in decision.options for decision in decisions)


@pytest.mark.parametrize(
    ("language", "sentence"),
    [("en", "cost about 40.0 points"), ("fr", "a coûté environ 40.0 points")],
)
def test_the_command_names_the_costliest_decisions(
    tmp_path: Path, language: str, sentence: str
) -> None:
    path = tmp_path / "game.txt"
    path.write_text(wizard_bid_of_nothing_with_a_wizard())
    shown = subprocess.run(
        [
            sys.executable,
            "-m",
            "tapisvert",
            "review",
            str(path),
            "--seat",
            "1",
            "--samples",
            "5",
            "--lang",
            language,
        ],
        capture_output=True,
        text=True,
        check=True,
        env={**os.environ, "COLUMNS": "160"},
    ).stdout
    assert sentence in shown and "bid 1" in shown


def test_the_true_position_played_out_scores_each_option() -> None:
    """What the calibration benchmark compares with the review: the same play-outs, in the
    position itself (every hand known)."""
    from tapisvert.bots.search import points_in_state

    record = parse_record(wizard_bid_of_nothing_with_a_wizard())
    before = record.new_game().new_initial_state()
    for step in record.steps():
        if step.actor == 0:
            break
        before = step.state.clone()
    options = [before.string_to_action(text) for text in ("bid 0", "bid 1")]
    points = points_in_state(before, options, 3, random.Random(1))
    assert points == {options[0]: -10.0, options[1]: 30.0}
