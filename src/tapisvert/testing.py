"""The conformance kit: what every game must satisfy, checked over seeded random games.

Whoever adds a game runs it from their tests, on the installed game and everything its
plugin declares::

    from tapisvert.testing import check_plugin

    def test_my_game_conforms() -> None:
        check_plugin("my_game", games=3)

or from the command line: ``tapisvert check my_game`` (``--all`` for every installed game).
``check_game(game)`` runs the checks that need the game alone.

The kit is a list of named checks (:data:`CHECKS`); each raises :class:`ConformanceError`
saying which check failed, in which game (its seed) and at which step. Random games are
played to their end with uniformly random legal moves, chance drawn by the kit; game
``n`` of a run with seed ``s`` is the same game in every check.

- ``contract``: at every position the legal moves are there, each one's notation reads
  back as itself, the cards are all accounted for (``State.every_card``), ``view`` and
  ``legal_strings`` agree with ``observation`` and the notation, chance probabilities sum
  to one, illegal actions and texts are refused with ``IllegalActionError`` without
  changing anything, and the game ends.
- ``clone``: a clone equals its original, playing on either leaves the other unchanged,
  and both play on alike.
- ``seeds``: two states started from one seed, chance drawn by the engine and decisions
  by the same random choices, give identical histories, observations and returns;
  different seeds give different games somewhere over the run.
- ``hidden``: a state sampled from a seat's observation, which differs from the true one
  only in what that seat cannot see, gives the seat the same observation, the same view,
  the same tensor (when the game has an encoding) and, to the seat to act, the same legal
  moves: nothing it cannot see leaks into what it sees; a seat that is none of the game's
  (``-1``, one past the last) is refused with ``SeatError``. After an action the game calls
  public (``State.public_action``), played in both, the seat's observations are still the
  same: the action told it all that changed. Checked at a game's first and last position
  too, where a sampler has the least and the most to rebuild.
- ``records``: the record, in both forms, and the history replay to the same positions.
- ``encoding``: tensors of the declared shape, float32, within the declared range, the same
  written from the state (``write_state``) as from the observation; legal masks that mark
  exactly the legal moves, from the observation and from the state; compact indexes that
  read back.
- ``bot``: the heuristic bot, in every seat, plays only legal moves over whole games.
- ``rules``: the rules for players in every language.
- ``texts``: every text the game's code, terminal view and web board name, and every text
  of the game's own, in every language with the same placeholders.
- ``terminal_view``: the view module exports ``render`` and ``news`` and draws every
  seat's observations in every language.
- ``web_board``: the board's ``<game>.js`` and ``<game>.css`` are there; the module's
  default export holds what the browser calls and imports only the platform's modules.

Every asset is found through the game's plugin (``tapisvert.core.registry.GamePlugin``),
never at a fixed place.
"""

from __future__ import annotations

import ast
import io
import json
import random
import re
import string
from collections.abc import Callable, Iterator, Mapping
from dataclasses import dataclass
from functools import partial
from importlib import import_module
from importlib.resources import files
from importlib.util import find_spec
from typing import Any, Literal

from rich.console import Console

from tapisvert.core.errors import IllegalActionError, SeatError
from tapisvert.core.game import (
    CHANCE,
    Action,
    Game,
    HistoryNode,
    Observation,
    Seat,
    State,
    flatten_history,
)
from tapisvert.core.records import parse_record, record_of
from tapisvert.core.registry import GamePlugin, load_game, plugin
from tapisvert.i18n import LANGUAGES, Message, catalogue, message
from tapisvert.rules_pages import render_markdown, rules_markdown

MAX_STEPS = 100_000
"""A game that has not ended after this many actions is taken not to end."""
JUNK_TEXTS = ("", " ", "?", "play", "bid", "0", "-1", "99999999999", "²", "①", "٣", "x" * 300)
"""Texts that a notation must either read or refuse with ``IllegalActionError``."""
BOARD_EXPORTS = ("seat", "center", "hand", "prompt", "handles", "describe")
"""What the browser calls on every board (``web/table.js``, ``web/store.js``); a board may
add ``lastTrick``, ``summary``, ``sheet`` and ``moveWords``."""
KEY_CALLS = frozenset(
    {
        "translate",
        "message",
        "Message",
        "TapisvertError",
        "IllegalActionError",
        "OptionError",
        "RecordError",
    }
)
"""Calls whose first argument, in a game's Python code, is a catalogue key."""
CATALOGUE_KEY = re.compile(r"[a-z_][a-z0-9_]*(\.[a-z0-9_]+)+")
BOARD_KEY = re.compile(r"""\b(t|tn)\(\s*["']([a-z_][a-z0-9_.]*)["']""")
BOARD_DEFAULT_EXPORT = re.compile(r"export\s+default\s*\{([^}]*)\}")
BOARD_IMPORT = re.compile(r"""\bfrom\s+["']([^"']+)["']|\bimport\s*\(?\s*["']([^"']+)["']""")


class ConformanceError(AssertionError):
    """A game broke a rule of the contract; the message says which, where and with what seed."""


class NotApplicable(Exception):
    """A check that does not apply to this game (no encoding declared), and why."""

    def __init__(self, key: str) -> None:
        self.reason = message(f"check.skipped.{key}")
        super().__init__(self.reason.render())


@dataclass
class Subject:
    """What the checks look at: a game, its plugin when installed, and the run's settings."""

    game: Game[Any]
    plugin: GamePlugin | None = None
    games: int = 8
    seed: int = 0
    every: int = 7
    """The sampling checks run at every ``every``-th decision (samplers are the slow part),
    and at each game's first and last position."""
    max_steps: int = MAX_STEPS
    here: str = ""
    """Where the check is (game, seed, step): what a failure that crashed it names."""

    def installed(self) -> GamePlugin:
        """The plugin, for the checks of what it declares."""
        if self.plugin is None:
            raise NotApplicable("no_plugin")
        return self.plugin

    def runs(
        self, check: str, games: int | None = None
    ) -> Iterator[tuple[str, random.Random, random.Random]]:
        """For each game of the run (the first ``games`` of them): where it is (for
        messages), the generator that plays it (the same game in every check) and one for
        the check's own draws."""
        for number in range(self.games if games is None else min(games, self.games)):
            where = self.here = f"{self.game!r}, game {number} (seed {self.seed})"
            yield (
                where,
                random.Random(f"{self.seed}:{number}"),
                random.Random(f"{self.seed}:{number}:{check}"),
            )


@dataclass(frozen=True)
class Check:
    """One named rule of the kit; ``run`` raises :class:`ConformanceError` when it is broken."""

    name: str
    run: Callable[[Subject], None]
    game_only: bool
    """Whether the check needs the game alone (``check_game`` runs those), not its plugin."""

    @property
    def description_key(self) -> str:
        """The catalogue key of what the check verifies, in words."""
        return f"check.{self.name}"


@dataclass(frozen=True)
class CheckResult:
    check: Check
    status: Literal["ok", "failed", "skipped"]
    detail: str = ""
    """Why it failed or was skipped (a failure is told for the game's author, in English)."""
    reason: Message | None = None
    """Why it was skipped, in the reader's language."""


def check_game(
    game: Game[Any],
    *,
    games: int = 8,
    seed: int = 0,
    every: int = 7,
    max_steps: int = MAX_STEPS,
) -> None:
    """Play ``games`` random games of ``game`` and check the contract at their positions.

    Runs the checks that need the game alone (see the module's documentation). The
    sampling checks run at every ``every``-th decision (samplers are the slow part) and at
    each game's first and last position; a game not over after ``max_steps`` actions
    fails. Raises :class:`ConformanceError` at the first failure, saying which rule, in
    which game and at which step.
    """
    subject = Subject(game, games=games, seed=seed, every=every, max_steps=max_steps)
    for check in CHECKS:
        if check.game_only:
            _run(check, subject)


def run_checks(
    game: Game[Any],
    *,
    games: int = 3,
    seed: int = 0,
    every: int = 7,
    max_steps: int = MAX_STEPS,
    checks: tuple[Check, ...] | None = None,
) -> Iterator[CheckResult]:
    """Run ``checks`` (all of them by default) on ``game`` and the plugin installed for it,
    yielding each one's result as it is known."""
    subject = Subject(game, plugin(game.name), games, seed, every, max_steps)
    for check in CHECKS if checks is None else checks:
        try:
            _run(check, subject)
        except ConformanceError as error:
            yield CheckResult(check, "failed", str(error))
        except NotApplicable as skipped:
            yield CheckResult(check, "skipped", str(skipped), skipped.reason)
        else:
            yield CheckResult(check, "ok")


def check_plugin(
    name: str,
    players: int | None = None,
    *,
    games: int = 3,
    seed: int = 0,
    options: Mapping[str, object] | None = None,
) -> None:
    """Run the whole kit on the installed game ``name`` (its default player count unless
    ``players`` is given); raises :class:`ConformanceError` naming every check that failed."""
    game = load_game(name, players, **(options or {}))
    failures = [
        result.detail
        for result in run_checks(game, games=games, seed=seed)
        if result.status == "failed"
    ]
    if failures:
        raise ConformanceError("\n".join(failures))


def _run(check: Check, subject: Subject) -> None:
    """``check.run``, with any failure or crash told as a failure of that check."""
    try:
        check.run(subject)
    except ConformanceError as error:
        raise ConformanceError(f"{check.name}: {error}") from error
    except NotApplicable:
        raise
    except Exception as error:
        where = subject.here or repr(subject.game)
        raise ConformanceError(f"{check.name}: {where}: the game raised {error!r}") from error


def _random_move(state: State, rng: random.Random, here: str) -> Action:
    return rng.choice(state.legal_actions())


def _walk(
    subject: Subject,
    rng: random.Random,
    where: str,
    decide: Callable[[State, random.Random, str], Action] = _random_move,
) -> Iterator[tuple[State, str]]:
    """Every position of a game from its start to its end (the last one is terminal), with
    where it is; chance is drawn from ``rng``, decisions by ``decide``. The caller inspects
    each position before the game moves on from it."""
    state = subject.game.new_initial_state(seed=rng.randrange(2**32))
    for step in range(subject.max_steps):
        here = subject.here = f"{where}, step {step}"
        yield state, here
        if state.is_terminal():
            return
        if state.current_player() == CHANCE:
            outcomes = state.chance_outcomes()
            _require(outcomes, here, "a chance node has no outcomes")
            total = sum(probability for _, probability in outcomes)
            _require(abs(total - 1) < 1e-9, here, f"chance probabilities sum to {total}")
            state.apply_action(rng.choices(*zip(*outcomes, strict=True))[0])
        else:
            state.apply_action(decide(state, rng, here))
    raise ConformanceError(f"{where}: no end after {subject.max_steps} actions")


def _decisions(
    subject: Subject, check: str, games: int | None = None
) -> Iterator[tuple[State, str, random.Random, int]]:
    """The positions where a seat decides, over the run's random games (the first
    ``games``), with where each is, the check's generator and the decision's number in its
    game."""
    for where, rng, own in subject.runs(check, games):
        decisions = 0
        for state, here in _walk(subject, rng, where):
            if state.current_player() >= 0:
                yield state, here, own, decisions
                decisions += 1


def _check_contract(subject: Subject) -> None:
    for where, rng, own in subject.runs("contract"):
        cards: list[int] | None = None
        for state, here in _walk(subject, rng, where):
            cards = state.every_card() if cards is None else cards
            if not state.is_terminal():
                _check_position(state, cards, own, here)
                continue
            _require(state.every_card() == cards, here, "cards are lost or made at the end")
            _require(state.legal_actions() == [], here, "a finished game still has legal actions")


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
    for seat in _seats(state.game):
        public, own = state.view_parts(seat)
        _require(
            not public.keys() & own.keys(),
            here,
            f"view_parts({seat}) name {sorted(public.keys() & own.keys())} in both parts",
        )
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


def _check_clones(subject: Subject) -> None:
    for where, rng, own in subject.runs("clone"):
        for step, (state, here) in enumerate(_walk(subject, rng, where)):
            if step % subject.every and not state.is_terminal():
                continue
            seen = _snapshot(state)
            twin = state.clone()
            _require(_snapshot(twin) == seen, here, "a clone differs from its original")
            _require(twin.returns() == state.returns(), here, "a clone has other returns")
            if state.is_terminal():
                continue
            legal = state.legal_actions()
            _require(twin.legal_actions() == legal, here, "a clone has other legal actions")
            action = own.choice(legal)
            twin.apply_action(action)
            _require(_snapshot(state) == seen, here, "playing on a clone changed its original")
            original = state.clone()
            kept = original.clone()
            original.apply_action(action)
            _require(_snapshot(kept) == seen, here, "playing on an original changed its clone")
            _require(
                _snapshot(original) == _snapshot(twin),
                here,
                f"a clone and its original, given the same move {action}, differ",
            )


def _check_seeds(subject: Subject) -> None:
    game = subject.game
    differ = False
    for where, rng, _ in subject.runs("seeds"):
        seed = rng.randrange(2**32)
        first, second, other = (game.new_initial_state(seed=s) for s in (seed, seed, seed + 1))
        for step in range(subject.max_steps):
            here = subject.here = f"{where}, step {step}"
            if step % subject.every == 0 or first.is_terminal():
                _require(
                    _snapshot(first) == _snapshot(second),
                    here,
                    f"two games started from the seed {seed} and played alike differ",
                )
            if first.is_terminal():
                break
            chance, choice = first.is_chance_node(), rng.random()
            for state in (first, second, other):
                if state.is_terminal() or state.is_chance_node() != chance:
                    continue  # another seed's game may be elsewhere: it waits
                if chance:
                    state.resolve_chance()
                else:
                    legal = state.legal_actions()
                    state.apply_action(legal[int(choice * len(legal))])
        else:
            raise ConformanceError(f"{where}: no end after {subject.max_steps} actions")
        _require(
            first.returns() == second.returns(),
            where,
            f"two games started from the seed {seed} and played alike end with other returns",
        )
        differ = differ or first.history() != other.history()
    _require(
        differ or subject.games == 0,
        f"{game!r} (seed {subject.seed})",
        f"games started from different seeds were the same in all {subject.games} games",
    )


def _check_hidden(subject: Subject) -> None:
    """At every ``every``-th decision, and at each game's start and end: a sampler has the
    least to rebuild at the one and the most at the other."""
    encode = _encoder(subject)
    for where, rng, own in subject.runs("hidden"):
        decisions = 0
        for step, (state, here) in enumerate(_walk(subject, rng, where)):
            deciding = state.current_player() >= 0
            if step == 0 or state.is_terminal() or (deciding and decisions % subject.every == 0):
                _check_what_seats_see(state, own, here, encode)
            decisions += deciding


def _check_what_seats_see(
    state: State,
    rng: random.Random,
    here: str,
    encode: Callable[[Observation], bytes] | None,
) -> None:
    game = state.game
    to_act = state.current_player()
    for stranger in (-1, game.players):  # -1 would index another seat's cards from the end
        try:
            state.observation(stranger)
        except SeatError:
            continue
        raise ConformanceError(f"{here}: observation({stranger}) is not refused (SeatError)")
    for seat in _seats(game):
        observation = state.observation(seat)
        sample = game.sample_state(observation, rng)
        seen = sample.observation(seat)
        _require(
            seen == observation,
            here,
            f"a state sampled from seat {seat}'s observation shows that seat something else",
        )
        _require(
            _json(seen.to_dict()) == _json(observation.to_dict()),
            here,
            f"seat {seat}'s view differs between two states it cannot tell apart",
        )
        _require(
            encode is None or encode(seen) == encode(observation),
            here,
            f"seat {seat}'s tensor differs between two states it cannot tell apart",
        )
        if to_act >= 0:
            _check_public_action(state, sample, seat, rng, here)
        if seat != to_act:
            continue
        _require(
            sorted(sample.legal_actions()) == sorted(state.legal_actions()),
            here,
            f"seat {seat} may do other things in a state it cannot tell apart",
        )


def _check_public_action(
    state: State, sample: State, seat: Seat | None, rng: random.Random, here: str
) -> None:
    """An action of the seat to act that the game calls public, played where it is legal in
    both states that ``seat`` cannot tell apart, leaves them still alike to ``seat``."""
    action = rng.choice(state.legal_actions())
    if not state.public_action(action) or action not in sample.legal_actions():
        return
    after, sample_after = state.clone(), sample.clone()
    after.apply_action(action)
    sample_after.apply_action(action)
    _require(
        sample_after.observation(seat) == after.observation(seat),
        here,
        f"after {state.action_to_string(action)}, which the game calls public, seat {seat} "
        "sees something else in two states it could not tell apart",
    )


def _encoder(subject: Subject) -> Callable[[Observation], bytes] | None:
    """The game's tensors, as bytes, when its plugin declares an encoding (and numpy, which
    tensors need, is installed)."""
    if subject.plugin is None or subject.plugin.encoding is None:
        return None
    try:
        from tapisvert.encoding import encoding_for
    except ImportError:
        return None
    encoding = encoding_for(subject.game)
    return lambda observation: encoding.encode(observation).tobytes()


def _check_records(subject: Subject) -> None:
    for where, rng, _ in subject.runs("records"):
        positions = [state.clone() for state, _ in _walk(subject, rng, where)]
        _check_replays(positions, where)


def _check_replays(positions: list[State], where: str) -> None:
    final = positions[-1]
    game = final.game
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
            for seat in _seats(game):
                _require(
                    copy.observation(seat) == original.observation(seat),
                    where,
                    f"replaying the record gives seat {seat} another view at step {number}",
                )
    again = game.new_initial_state()
    for action in final.history():
        again.apply_action(action)
    _require(_snapshot(again) == _snapshot(final), where, "replaying the history ends elsewhere")


def _check_encoding(subject: Subject) -> None:
    if subject.installed().encoding is None:
        raise NotApplicable("no_encoding")
    try:
        import numpy
    except ImportError:
        raise NotApplicable("no_numpy") from None
    from tapisvert.encoding import encoding_for

    encoding = encoding_for(subject.game)
    for state, here, _, _ in _decisions(subject, "encoding"):
        for seat in _seats(state.game):
            tensor = encoding.encode(state.observation(seat))
            _require(
                tensor.shape == encoding.shape and tensor.dtype == numpy.float32,
                here,
                f"seat {seat}'s tensor is {tensor.dtype} of shape {tensor.shape}, not float32 "
                f"of shape {encoding.shape}",
            )
            _require(
                bool(numpy.all((tensor >= encoding.low) & (tensor <= 1))),
                here,
                f"seat {seat}'s tensor leaves [{encoding.low}, 1]",
            )
            _require(
                numpy.array_equal(encoding.encode_state(state, seat), tensor),
                here,
                f"seat {seat}'s tensor written from the state differs from its observation's",
            )
        seat = state.current_player()
        observation = state.observation(seat)
        legal = state.legal_actions()
        mask = encoding.legal_mask(observation, legal)
        _require(
            mask.shape == (encoding.action_count,) and int(mask.sum()) == len(legal),
            here,
            f"the legal mask marks {int(mask.sum())} of {len(legal)} legal actions",
        )
        written = numpy.ones(encoding.action_count, dtype=numpy.int8)  # a stale buffer
        _require(
            encoding.write_legal(written, state) == legal
            and numpy.array_equal(written.astype(numpy.bool_), mask),
            here,
            "the mask written from the state differs from the observation's",
        )
        for action in legal:
            index = encoding.action_index(observation, action)
            _require(
                encoding.action_at(observation, index) == action
                and encoding.action_of(state, index) == action,
                here,
                f"the compact index {index} of action {action} reads back as another action",
            )


def _check_bot(subject: Subject) -> None:
    game = subject.game
    bot = subject.installed().heuristic_bot(game)

    def decide(state: State, rng: random.Random, here: str) -> Action:
        seat = state.current_player()
        legal = state.legal_actions()
        choice: Action = bot.choose(state.observation(seat), list(legal), rng)
        _require(
            choice in legal,
            here,
            f"the heuristic bot, in seat {seat}, chose {choice!r}, which is not a legal action",
        )
        return choice

    for where, rng, _ in subject.runs("bot"):
        for _ in _walk(subject, rng, where, decide):
            pass


def _check_rules(subject: Subject) -> None:
    name, place = subject.game.name, subject.installed().rules
    for language in LANGUAGES:
        where = f"{subject.game!r}, rules in {language} (rules.{language}.md in {place})"
        try:
            text = rules_markdown(name, language)
        except (LookupError, OSError) as error:
            raise ConformanceError(f"{where}: missing ({error!r})") from None
        _require(render_markdown(text).strip(), where, "empty")


def _check_texts(subject: Subject) -> None:
    game = subject.game
    tables = {language: catalogue(language) for language in LANGUAGES}
    used = _keys_used(subject)
    for table in tables.values():
        for key in filter(partial(_is_own_key, game=game.name), table):
            used.setdefault(key, "the game's catalogues")
    for key in sorted(used):
        where = f"{game!r}, the text {key!r} ({used[key]})"
        forms = {}
        for language, table in tables.items():
            _require(key in table, where, f"missing in {language}")
            forms[language] = _placeholders(table[key])
        _require(
            len(set(forms.values())) == 1,
            where,
            "other placeholders in another language: "
            + ", ".join(f"{language} {sorted(names)}" for language, names in forms.items()),
        )


def _is_own_key(key: str, game: str) -> bool:
    """Whether a catalogue key is one of the game's texts (``game.…``, ``cli.game.…``)."""
    return key.startswith((f"{game}.", f"cli.{game}."))


def _keys_used(subject: Subject) -> dict[str, str]:
    """The catalogue keys that the game's code, terminal view and board name, and those the
    platform names for every game, each with where it is named."""
    declared = subject.installed()
    game = subject.game
    used = {
        f"{game.name}.name": "the game's name, in the web app",
        f"{game.name}.board.blurb": "the game's summary, in the web app",
    }
    for spec in game.option_specs:
        used[spec.description_key] = f"the option {spec.name}"
    for place, source in [*_game_sources(game), *_sources(declared.terminal_view)]:
        for key in _python_keys(source):
            used.setdefault(key, place)
    board = files(declared.web_board).joinpath(f"{game.name}.js")
    if board.is_file():
        for function, key in BOARD_KEY.findall(board.read_text("utf-8")):
            for each in [key] if function == "t" else [f"{key}.one", f"{key}.other"]:
                used.setdefault(each, f"the web board {game.name}.js")
    return used


def _game_sources(game: Game[Any]) -> list[tuple[str, str]]:
    """The Python sources of the game's package (of its module, outside a package), each
    with its name."""
    package = import_module(type(game).__module__).__package__
    if not package:
        return _sources(type(game).__module__)
    return [
        (f"{package}/{source.name}", source.read_text("utf-8"))
        for source in files(package).iterdir()
        if source.name.endswith(".py")
    ]


def _sources(module: str) -> list[tuple[str, str]]:
    """The source of ``module`` with its name; none for a module without one (compiled)."""
    spec = find_spec(module)
    if spec is None or spec.origin is None or not spec.origin.endswith(".py"):
        return []
    with open(spec.origin, encoding="utf-8") as source:
        return [(module, source.read())]


def _python_keys(source: str) -> set[str]:
    """The literal catalogue keys that Python code passes to the texts' functions and errors."""
    found = set()
    for node in ast.walk(ast.parse(source)):
        if not isinstance(node, ast.Call) or not node.args:
            continue
        function = node.func
        called = function.id if isinstance(function, ast.Name) else getattr(function, "attr", "")
        first = node.args[0]
        if (
            called in KEY_CALLS
            and isinstance(first, ast.Constant)
            and isinstance(first.value, str)
            and CATALOGUE_KEY.fullmatch(first.value)
        ):
            found.add(first.value)
    return found


def _placeholders(template: str) -> frozenset[str]:
    return frozenset(name for _, name, _, _ in string.Formatter().parse(template) if name)


def _check_terminal_view(subject: Subject) -> None:
    place = subject.installed().terminal_view
    where = f"{subject.game!r}, the terminal view {place}"
    try:
        view = import_module(place)
    except ImportError as error:
        raise ConformanceError(f"{where}: cannot be imported ({error!r})") from None
    for function in ("render", "news"):
        _require(callable(getattr(view, function, None)), where, f"exports no {function}()")
    console = Console(file=io.StringIO(), width=100, color_system=None)
    last: dict[Seat | None, Observation] = {}
    for state, _, _, decision in _decisions(subject, "terminal_view", games=1):
        if decision % subject.every:
            continue
        seats = _seats(state.game)
        seat = seats[decision // subject.every % len(seats)]  # each in turn, spectators too
        observation = state.observation(seat)
        for language in LANGUAGES:
            console.print(view.render(observation, language))
            for line in view.news(last.get(seat), observation, language):
                console.print(line)
        last[seat] = observation


def _check_web_board(subject: Subject) -> None:
    name, place = subject.game.name, subject.installed().web_board
    folder = files(place)
    for kind in ("js", "css"):
        _require(
            folder.joinpath(f"{name}.{kind}").is_file(),
            f"{subject.game!r}, the web board",
            f"{name}.{kind} is missing from {place}",
        )
    where = f"{subject.game!r}, the web board {name}.js in {place}"
    source = folder.joinpath(f"{name}.js").read_text("utf-8")
    exported = BOARD_DEFAULT_EXPORT.search(source)
    if exported is None:
        raise ConformanceError(f"{where}: no default export of its parts (export default {{…}})")
    parts = {item.split(":")[0].strip() for item in exported.group(1).split(",")} - {""}
    missing = [part for part in BOARD_EXPORTS if part not in parts]
    _require(not missing, where, f"the default export lacks {', '.join(missing)}")
    for part in sorted(parts):
        defined = rf"\b(function|const|let|var|class)\s+{part}\b|\bimport\s*{{[^}}]*\b{part}\b"
        _require(
            re.search(defined, source),
            where,
            f"exports {part}, which it does not define",
        )
    platform = files("tapisvert.web")
    for groups in BOARD_IMPORT.findall(source):
        imported = groups[0] or groups[1]
        _require(
            imported.startswith("../") and platform.joinpath(imported[3:]).is_file(),
            where,
            f"imports {imported!r}, which is not a module of the platform (../<module>.js)",
        )


def _seats(game: Game[Any]) -> list[Seat | None]:
    """Every seat, then the spectators'."""
    return [*range(game.players), None]


def _json(data: object) -> str:
    return json.dumps(data, sort_keys=True)


class _History:
    """A position's history as a snapshot holds it: equal to another where its actions are.
    The history is a persistent node, the same object while nothing is played, so it is
    compared by identity first: walking it at every check made the kit quadratic in a
    game's length."""

    __slots__ = ("node",)

    def __init__(self, node: HistoryNode) -> None:
        self.node = node

    def __eq__(self, other: object) -> bool:
        if not isinstance(other, _History):
            return NotImplemented
        return self.node is other.node or flatten_history(self.node) == flatten_history(other.node)

    __hash__ = None  # type: ignore[assignment]  # equal by value: not a key


def _snapshot(state: State) -> tuple[object, ...]:
    """What a change of position would change: the history, every seat's view, the cards."""
    views = tuple(_json(state.observation(seat).to_dict()) for seat in _seats(state.game))
    return (_History(state._history), state.current_player(), views, tuple(state.every_card()))


def _require(condition: object, where: str, failure: str) -> None:
    if not condition:
        raise ConformanceError(f"{where}: {failure}")


CHECKS: tuple[Check, ...] = (
    Check("contract", _check_contract, game_only=True),
    Check("clone", _check_clones, game_only=True),
    Check("seeds", _check_seeds, game_only=True),
    Check("hidden", _check_hidden, game_only=True),
    Check("records", _check_records, game_only=True),
    Check("encoding", _check_encoding, game_only=False),
    Check("bot", _check_bot, game_only=False),
    Check("rules", _check_rules, game_only=False),
    Check("texts", _check_texts, game_only=False),
    Check("terminal_view", _check_terminal_view, game_only=False),
    Check("web_board", _check_web_board, game_only=False),
)
"""The kit, in the order it runs: the game's own rules first, then what its plugin declares."""
