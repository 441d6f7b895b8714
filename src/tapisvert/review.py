"""A finished game reviewed for one seat: what each of its decisions cost, in expectation.

At each decision of the seat, the search weighs its options from that seat's information
only — worlds drawn by ``game.sample_state`` from the seat's observation at that moment, the
discipline of the bots — and estimates the points each option would bring by the end of
the scoring segment (``tapisvert.bots.search.expected_points``). A decision's cost is what
the best option was expected to bring more than the move played. Beyond ``MOST_OPTIONS``
legal moves (a Fzzzt! bid from a large hand), the move played, the heuristic bot's choice
and others drawn at random are weighed.
"""

from __future__ import annotations

import random
from collections.abc import Callable
from dataclasses import dataclass
from typing import Any

from tapisvert.bots import Bot, make_bot
from tapisvert.bots.search import expected_points
from tapisvert.core.game import CHANCE, Action, Seat, State
from tapisvert.core.records import Record, parse_record

MOST_OPTIONS = 12
"""Options weighed at one decision at most."""


@dataclass(frozen=True)
class Option:
    action: Action
    text: str
    expected: float
    """Points expected by the end of the scoring segment, from this decision on."""


@dataclass(frozen=True)
class Decision:
    step: int
    """The number of the move in the record (1 for the first action)."""
    played: Option
    options: tuple[Option, ...]
    """The options weighed, the best first."""

    @property
    def best(self) -> Option:
        return self.options[0]

    @property
    def cost(self) -> float:
        """What the move played was expected to lose against the best option (0 at best)."""
        return max(0.0, self.best.expected - self.played.expected)


def review_game(
    record: Record,
    seat: Seat,
    samples: int = 40,
    seed: int = 0,
    progress: Callable[[int, int], None] | None = None,
) -> list[Decision]:
    """Every decision of ``seat`` in the game of ``record``, weighed; ``progress(done, total)``
    hears of each one."""
    if not 0 <= seat < record.players:
        raise ValueError(f"seat {seat + 1} is not at a table of {record.players}")
    # the position before each of the seat's moves, the move's number and its text
    positions: list[tuple[State, int, str]] = []
    before: State = record.new_game().new_initial_state()
    for step in record.steps():
        if step.actor == seat:
            positions.append((before, step.number, step.text))
        before = step.state.clone()
    rng = random.Random(seed)
    heuristic = make_bot("easy", record.new_game())
    decisions: list[Decision] = []
    for state, number, text in positions:
        decisions.append(_weigh(state, number, text, samples, rng, heuristic))
        if progress is not None:
            progress(len(decisions), len(positions))
    return decisions


def _weigh(
    state: State, number: int, text: str, samples: int, rng: random.Random, heuristic: Bot
) -> Decision:
    seat = state.current_player()
    observation = state.observation(seat)
    legal = state.legal_actions()
    played = state.string_to_action(text)
    candidates = legal
    if len(legal) > MOST_OPTIONS:
        suggested = heuristic.choose(observation, legal, rng)
        others = [action for action in legal if action not in (played, suggested)]
        drawn = rng.sample(others, MOST_OPTIONS - 2)
        candidates = list(dict.fromkeys([played, suggested, *drawn]))
    values = expected_points(state.game, observation, candidates, samples, rng)
    options = tuple(
        sorted(
            (
                Option(action, state.action_to_string(action), value)
                for action, value in values.items()
            ),
            key=lambda option: (-option.expected, option.action),
        )
    )
    chosen = next(option for option in options if option.action == played)
    return Decision(number, chosen, options)


def review_as_json(record_text: str, seat: Seat, samples: int, seed: int) -> dict[str, Any]:
    """``review_game`` of a record given as text, as plain data for a client: each decision
    with ``move``, its number among the moves (chance aside, from 1), which is also the step
    of a replay that shows it made. A function of plain values, so that a worker process
    can run it."""
    record = parse_record(record_text)
    move_number: dict[int, int] = {}
    moves = 0
    for step in record.steps():
        moves += step.actor != CHANCE
        move_number[step.number] = moves
    decisions = review_game(record, seat, samples, seed)

    def option(chosen: Option) -> dict[str, Any]:
        return {"text": chosen.text, "expected": round(chosen.expected, 2)}

    return {
        "seat": seat,
        "samples": samples,
        "cost": round(sum(decision.cost for decision in decisions), 2),
        "decisions": [
            {
                "move": move_number[decision.step],
                "played": option(decision.played),
                "best": option(decision.best),
                "options": [option(weighed) for weighed in decision.options],
                "cost": round(decision.cost, 2),
            }
            for decision in decisions
        ],
    }
