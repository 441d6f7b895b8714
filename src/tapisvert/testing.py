"""The conformance kit: what every game must satisfy, checked over seeded random games.

Whoever adds a game runs it from their tests::

    from tapisvert import load_game
    from tapisvert.testing import check_game

    def test_my_game_conforms() -> None:
        check_game(load_game("my_game", players=3))

Each random game is played to its end with uniformly random legal moves (chance drawn by
the engine). At every position: the legal moves are there, each one's notation reads back
as itself, the cards are all accounted for (``State.every_card``), a clone is independent
of its original, and illegal actions and texts are refused without changing anything. At
every few decisions, for each seat and for the spectators: a state sampled from the
observation, which differs from the true one only in what that seat cannot see, gives the
seat the same observation and the same view (nothing it cannot see leaks into what it
sees), and the seat to act the same legal moves. Over the whole game: the record, in both
forms, replays to the same positions, and so does the history.
"""

from __future__ import annotations

import json
import random
from collections.abc import Callable
from functools import partial
from typing import Any

from tapisvert.core.errors import IllegalActionError
from tapisvert.core.game import CHANCE, Action, Game, Seat, State
from tapisvert.core.records import parse_record, record_of

MAX_STEPS = 100_000
"""A game that has not ended after this many actions is taken not to end."""
JUNK_TEXTS = ("", " ", "?", "play", "bid", "0", "-1", "99999999999", "²", "①", "٣", "x" * 300)
"""Texts that a notation must either read or refuse with ``IllegalActionError``."""


class ConformanceError(AssertionError):
    """A game broke a rule of the contract; the message says which, where and with what seed."""


def check_game(
    game: Game[Any],
    *,
    games: int = 8,
    seed: int = 0,
    every: int = 7,
    max_steps: int = MAX_STEPS,
) -> None:
    """Play ``games`` random games of ``game`` and check the contract at their positions.

    The sampling checks run at every ``every``-th decision (samplers are the slow part);
    a game not over after ``max_steps`` actions fails. Raises :class:`ConformanceError`
    at the first failure, saying which rule, in which game and at which step.
    """
    for number in range(games):
        rng = random.Random(f"{seed}:{number}")
        where = f"{game!r}, game {number} (seed {seed})"
        try:
            _check_one_game(game, rng, every, max_steps, where)
        except ConformanceError:
            raise
        except Exception as error:
            raise ConformanceError(f"{where}: the game raised {error!r}") from error


def _check_one_game(
    game: Game[Any], rng: random.Random, every: int, max_steps: int, where: str
) -> None:
    state = game.new_initial_state(seed=rng.randrange(2**32))
    cards = state.every_card()
    positions = [state.clone()]
    decisions = 0
    for step in range(max_steps):
        here = f"{where}, step {step}"
        if state.is_terminal():
            break
        _check_position(state, cards, rng, here)
        player = state.current_player()
        if player == CHANCE:
            outcomes = state.chance_outcomes()
            _require(outcomes, here, "a chance node has no outcomes")
            total = sum(probability for _, probability in outcomes)
            _require(abs(total - 1) < 1e-9, here, f"chance probabilities sum to {total}")
            state.apply_action(rng.choices(*zip(*outcomes, strict=True))[0])
        else:
            if decisions % every == 0:
                _check_what_seats_see(state, rng, here)
            decisions += 1
            state.apply_action(rng.choice(state.legal_actions()))
        positions.append(state.clone())
    else:
        raise ConformanceError(f"{where}: no end after {max_steps} actions")
    _require(state.every_card() == cards, where, "cards are lost or made at the end")
    _require(state.legal_actions() == [], where, "a finished game still has legal actions")
    _check_replays(positions, where)


def _check_position(state: State, cards: list[int], rng: random.Random, here: str) -> None:
    _require(state.every_card() == cards, here, "cards are lost or made")
    legal = state.legal_actions()
    _require(legal, here, "a position that is not the end has no legal action")
    _require(len(set(legal)) == len(legal), here, "an action is listed twice")
    texts = state.legal_strings()
    _require(
        texts == [state.action_to_string(action) for action in legal],
        here,
        "legal_strings() is not the notation of legal_actions(), in their order",
    )
    for seat in [*range(state.game.players), None]:
        _require(
            state.view(seat) == state.observation(seat).to_dict(),
            here,
            f"view({seat}) differs from observation({seat}).to_dict()",
        )
    for action, text in zip(legal, texts, strict=True):
        _require(
            state.string_to_action(text) == action,
            here,
            f"the notation {text!r} of action {action} does not read back as it",
        )
    before = _snapshot(state)
    twin = state.clone()
    twin.apply_action(rng.choice(legal))
    _require(_snapshot(state) == before, here, "playing on a clone changed its original")
    for action in _illegal_actions(legal, rng):
        refused = _refuses(partial(state.apply_action, action), here, f"the action {action}")
        _require(refused, here, f"the illegal action {action} was accepted")
    for text in JUNK_TEXTS:
        _refuses(partial(state.string_to_action, text), here, f"the text {text!r}")
    _require(_snapshot(state) == before, here, "a refused action or text changed the position")


def _refuses(attempt: Callable[[], object], here: str, what: str) -> bool:
    """Whether ``attempt()`` raised ``IllegalActionError``; any other exception is a failure."""
    try:
        attempt()
    except IllegalActionError:
        return True
    except Exception as error:
        raise ConformanceError(f"{here}: {what} raised {error!r}") from None
    return False


def _illegal_actions(legal: list[Action], rng: random.Random) -> list[Action]:
    allowed = set(legal)
    candidates = [-1, -(2**40), max(legal) + 1, 2**62, *(rng.randrange(2**16) for _ in range(8))]
    return [action for action in candidates if action not in allowed]


def _check_what_seats_see(state: State, rng: random.Random, here: str) -> None:
    game = state.game
    to_act = state.current_player()
    for seat in [*range(game.players), None]:
        observation = state.observation(seat)
        sample = game.sample_state(observation, rng)
        _require(
            sample.observation(seat) == observation,
            here,
            f"a state sampled from seat {seat}'s observation shows that seat something else",
        )
        _require(
            json.dumps(sample.observation(seat).to_dict(), sort_keys=True)
            == json.dumps(observation.to_dict(), sort_keys=True),
            here,
            f"seat {seat}'s view differs between two states it cannot tell apart",
        )
        if seat != to_act:
            continue
        _require(
            sorted(sample.legal_actions()) == sorted(state.legal_actions()),
            here,
            f"seat {seat} may do other things in a state it cannot tell apart",
        )


def _check_replays(positions: list[State], where: str) -> None:
    final = positions[-1]
    game = final.game
    seats: list[Seat | None] = [*range(game.players), None]
    record = record_of(final)
    for form in (record.to_text(), record.to_json()):
        read = parse_record(form)
        _require(
            (read.game, read.players, read.options)
            == (game.name, game.players, dict(game.options)),
            where,
            "the record names another game",
        )
        replayed = [game.new_initial_state()]
        for text in read.actions:
            replayed.append(replayed[-1].clone())
            replayed[-1].apply_string(text)
        _require(len(replayed) == len(positions), where, "the record replays to another length")
        for number, (original, copy) in enumerate(zip(positions, replayed, strict=True)):
            for seat in seats:
                _require(
                    copy.observation(seat) == original.observation(seat),
                    where,
                    f"replaying the record gives seat {seat} another view at step {number}",
                )
    again = game.new_initial_state()
    for action in final.history():
        again.apply_action(action)
    _require(_snapshot(again) == _snapshot(final), where, "replaying the history ends elsewhere")


def _snapshot(state: State) -> tuple[object, ...]:
    """What a change of position would change: the history, every seat's view, the cards."""
    seats = [*range(state.game.players), None]
    views = tuple(json.dumps(state.observation(seat).to_dict(), sort_keys=True) for seat in seats)
    return (tuple(state.history()), state.current_player(), views, tuple(state.every_card()))


def _require(condition: object, where: str, failure: str) -> None:
    if not condition:
        raise ConformanceError(f"{where}: {failure}")
