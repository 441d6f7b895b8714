"""Tournament formats and standings, by hand-computed examples and over random fields."""

from __future__ import annotations

import itertools
import random
from collections import Counter

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from tapisvert.server.tournaments.formats import (
    FieldError,
    knockout_round,
    meetings,
    round_robin,
    swiss_round,
    table_plan,
)
from tapisvert.server.tournaments.standings import Finished, game_points, standings


def test_points_are_a_chess_score_scaled_to_the_tournaments_table_size() -> None:
    tie = Finished(players=(1, 2, 3, 4), places=(1, 2, 2, 4), scores=(90, 40, 40, 10))
    assert game_points(tie, 4) == {1: 3.0, 2: 1.5, 3: 1.5, 4: 0.0}
    short = Finished(players=(5, 6, 7), places=(1, 2, 3), scores=(3, 2, 1))
    assert game_points(short, 4) == {5: 3.0, 6: 1.5, 7: 0.0}  # one seat short: no poorer
    absent = Finished(
        players=(1, 2, 3, 4), places=(2, 1, 3, 1), scores=(5, 9, 1, 9), absent=frozenset({4})
    )
    assert game_points(absent, 4) == {1: 2.0, 2: 3.0, 3: 1.0, 4: 0.0}  # last, whatever the bot did


def test_standings_break_ties_by_the_opponents_points_then_the_margin() -> None:
    games = [
        Finished(players=(1, 2, 3), places=(1, 2, 3), scores=(30, 20, 10)),
        Finished(players=(4, 5, 6), places=(1, 2, 3), scores=(60, 10, 5)),
        Finished(players=(1, 5, 6), places=(3, 1, 2), scores=(0, 20, 10)),
        Finished(players=(4, 2, 3), places=(3, 1, 2), scores=(0, 30, 0)),
    ]
    table = standings([1, 2, 3, 4, 5, 6], games, 3)
    by_player = {standing.player: standing for standing in table}
    # points: 1: 2+0, 2: 1+2, 3: 0+1, 4: 2+0, 5: 1+2, 6: 0+1
    assert [by_player[player].points for player in range(1, 7)] == [2, 3, 1, 2, 3, 1]
    # 2 and 5 level on 3 points: 2 met 1, 3, 4, 3 (2+1+2+1 = 6); 5 met 4, 6, 1, 6 (2+1+2+1 = 6)
    # margins: 2: (20-20)+(30-10) = 20; 5: (10-25)+(20-10) = -5: 2 first
    assert [standing.player for standing in table[:2]] == [2, 5]
    assert by_player[2].opponents_points == by_player[5].opponents_points == 6
    assert (by_player[2].margin, by_player[5].margin) == (20, -5)
    # 1 and 4 level on 2 points and 8 opponents' points (3+1+3+1): margins 0 and 25
    assert [standing.player for standing in table[2:4]] == [4, 1]
    # 3 and 6 level on 1 point, 10 opponents' points, margin -20: 3 registered first
    assert [standing.player for standing in table[4:]] == [3, 6]
    assert [standing.rank for standing in table] == [1, 2, 3, 4, 5, 6]
    level = standings([7, 8], [Finished(players=(7, 8), places=(1, 1), scores=(1, 1))], 2)
    assert [(standing.player, standing.rank) for standing in level] == [(7, 1), (8, 2)]


def test_a_field_is_cut_into_tables_as_even_as_can_be() -> None:
    assert table_plan(12, 4, "bots", 3) == [4, 4, 4]
    assert table_plan(13, 4, "bots", 3) == [4, 3, 3, 3]
    assert table_plan(13, 4, "smaller", 3) == [4, 3, 3, 3]
    assert table_plan(5, 4, "bots", 3) == [3, 2]
    with pytest.raises(FieldError):
        table_plan(5, 4, "smaller", 3)  # two tables of 3 need six
    with pytest.raises(FieldError):
        table_plan(2, 4, "smaller", 3)


def test_swiss_seats_close_standings_together_and_avoids_meeting_again() -> None:
    ranked = list(range(12))
    first = swiss_round(ranked, table_plan(12, 4, "bots", 3), 4, "bots", Counter())
    assert first == [(0, 1, 2, 3), (4, 5, 6, 7), (8, 9, 10, 11)]
    second = swiss_round(ranked, table_plan(12, 4, "bots", 3), 4, "bots", meetings([first]))
    # four players from three tables of the first round: one pair meets again at each table,
    # and no more than that
    again = meetings([second])
    assert sum(count for pair, count in again.items() if meetings([first])[pair]) == 3
    assert second[0][0] == 0  # the leader heads the top table


@settings(max_examples=60)
@given(
    count=st.integers(min_value=3, max_value=30),
    size=st.integers(min_value=2, max_value=6),
    fill=st.sampled_from(["bots", "smaller"]),
    rounds=st.integers(min_value=1, max_value=4),
    seed=st.integers(min_value=0, max_value=1000),
)
def test_every_round_seats_every_player_once(
    count: int, size: int, fill: str, rounds: int, seed: int
) -> None:
    try:
        plan = table_plan(count, size, fill, 2)
    except FieldError:
        return
    players = list(range(100, 100 + count))
    random.Random(seed).shuffle(players)
    history = []
    for _ in range(rounds):
        tables = swiss_round(players, plan, size, fill, meetings(history))
        seated = [player for table in tables for player in table if player is not None]
        assert sorted(seated) == sorted(players)
        assert sorted(len([p for p in table if p is not None]) for table in tables) == sorted(plan)
        assert all(len(table) == size for table in tables) or fill == "smaller"
        history.append(tables)
        random.Random(seed + len(history)).shuffle(players)
    knocked = knockout_round(players, plan, size, fill)
    assert sorted(p for table in knocked for p in table if p is not None) == sorted(players)


def test_knockout_spreads_the_strongest_as_a_snake() -> None:
    assert knockout_round(list(range(1, 9)), [4, 4], 4, "bots") == [(1, 4, 5, 8), (2, 3, 6, 7)]


@pytest.mark.parametrize(("count", "size"), [(4, 2), (5, 2), (6, 3), (7, 3), (8, 4), (9, 3)])
def test_round_robin_seats_every_pair_together(count: int, size: int) -> None:
    players = list(range(count))
    rounds = round_robin(players, size)
    met = meetings(rounds)
    assert set(met) == {frozenset(pair) for pair in itertools.combinations(players, 2)}
    if size == 2:
        assert len(rounds) == count - 1 + count % 2 and set(met.values()) == {1}
    for tables in rounds:
        seated = [player for table in tables for player in table if player is not None]
        assert len(seated) == len(set(seated))
    assert len(rounds) <= count  # a handful of rounds for a small field
