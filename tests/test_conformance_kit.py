"""The conformance kit passes the games and names the rule each broken one breaks.

The broken games are the duel of ``tests/plugins`` (two players, twelve cards, four
tricks), loaded from its file without being installed (this process keeps its four
games) and known to the registry for the length of a test, with one part broken: a
method of its state, a part of its plugin, or a file of a package its plugin names.
"""

from __future__ import annotations

import importlib.util
import random
import re
import sys
from collections.abc import Iterator, Sequence
from dataclasses import dataclass, field, replace
from pathlib import Path
from types import ModuleType
from typing import Any, cast

import pytest
from typer.testing import CliRunner

from tapisvert import CHANCE, Action, Game, Observation, Seat, State, i18n
from tapisvert.cli.main import app
from tapisvert.core import registry
from tapisvert.core.registry import GamePlugin
from tapisvert.encoding import Encoding, Tensor, add_counts, one_hot
from tapisvert.testing import CHECKS, ConformanceError, check_game, check_plugin, run_checks

DUEL_FOLDER = Path(__file__).resolve().parent / "plugins" / "duel_game"
DUEL_BOARD = (DUEL_FOLDER / "duel.js").read_text("utf-8")


def load_duel() -> ModuleType:
    folder = DUEL_FOLDER
    spec = importlib.util.spec_from_file_location(
        "duel_game", folder / "__init__.py", submodule_search_locations=[str(folder)]
    )
    assert spec is not None and spec.loader is not None
    module = importlib.util.module_from_spec(spec)
    sys.modules["duel_game"] = module
    spec.loader.exec_module(module)
    return module


duel_game = load_duel()
Duel, DuelState, DuelObservation = duel_game.Duel, duel_game.DuelState, duel_game.DuelObservation
DECK, name, suit = duel_game.DECK, duel_game.name, duel_game.suit


@pytest.fixture(autouse=True)
def duel_known(monkeypatch: pytest.MonkeyPatch) -> Iterator[None]:
    """The duel and its texts are known for the length of a test (records name their game,
    errors are told in words)."""
    monkeypatch.setitem(registry.plugins(), "duel", duel_game.PLUGIN)
    monkeypatch.setattr(i18n, "_ADDED", [*i18n._ADDED, "duel_game"])
    i18n.catalogue.cache_clear()
    yield
    i18n.catalogue.cache_clear()


def broken(method: str, replacement: Any) -> Duel:
    """The duel with one state method replaced."""
    state_class = type("BrokenDuelState", (DuelState,), {method: replacement})
    game_class = type(
        "BrokenDuel",
        (Duel,),
        {"new_initial_state": lambda self, seed=None: state_class(self, seed)},
    )
    return game_class(2)


def test_a_correct_game_passes() -> None:
    check_game(Duel(2), games=20)


def leaky_observation(self: DuelState, seat: Seat | None) -> DuelObservation:
    seen = DuelState.observation(self, seat)
    return DuelObservation(**{**seen.__dict__, "hand": tuple(sorted(self.hands[0]))})


def shared_clone(self: DuelState) -> DuelState:
    twin = self._bare_clone()
    twin.__dict__ = self.__dict__.copy()
    return twin


def careless_apply(self: DuelState, action: Action) -> None:
    if self.to_act >= 0 and action not in self.legal_actions() and 0 <= action < len(DECK):
        self.points[self.to_act] += 1
        return
    DuelState.apply_action(self, action)


def lost_tricks(self: DuelState) -> list[int]:
    return sorted([*self.hands[0], *self.hands[1], *self.aside, *self.trick])


def ambiguous_names(self: DuelState, action: Action) -> str:
    return f"play {name(action % 4)}"


def crashing_reader(self: DuelState, text: str) -> Action:
    return int(text.split()[-1])


def endless(self: DuelState) -> None:
    led, answer = self.trick
    self.hands[self.to_act].append(led)
    self.hands[1 - self.to_act].append(answer)
    self.trick = []


def stale_view(self: DuelState, seat: Seat | None) -> dict[str, Any]:
    return {**DuelState.observation(self, seat).to_dict(), "points": (0, 0)}


def reversed_strings(self: DuelState) -> list[str]:
    return [self.action_to_string(action) for action in reversed(self.legal_actions())]


def pointless_clone(self: DuelState) -> DuelState:
    twin = DuelState.clone(self)
    twin.points = [0, 0]
    return twin


def undealt_history(self: DuelState, action: Action) -> None:
    before, dealing = self._history, self.to_act == CHANCE
    DuelState.apply_action(self, action)
    if dealing:
        self._history = before


@pytest.mark.parametrize(
    ("method", "replacement", "complaint"),
    [
        ("observation", leaky_observation, "shows that seat something else"),
        ("clone", shared_clone, "changed its original"),
        ("apply_action", careless_apply, "was accepted"),
        ("every_card", lost_tricks, "cards are lost or made"),
        ("action_to_string", ambiguous_names, "does not read back"),
        ("string_to_action", crashing_reader, "raised"),
        ("_end_trick", endless, "no end after"),
        ("view", stale_view, r"view\(0\) differs from observation\(0\)"),
        ("legal_strings", reversed_strings, "not the notation of legal_actions"),
        ("clone", pointless_clone, r"step \d+: a clone differs from its original"),
        ("apply_action", undealt_history, r"records: .*\(seed 0\): the record replays to another"),
    ],
)
def test_each_broken_rule_is_named(method: str, replacement: Any, complaint: str) -> None:
    with pytest.raises(ConformanceError, match=complaint):
        check_game(broken(method, replacement), games=5, max_steps=500)


def test_an_action_called_public_that_tells_more_than_itself() -> None:
    """A game may call an action public only where it tells every seat all that changes: a
    play that also scores by the cards left in the player's hand (which the others do not
    see) is not."""

    def telling_apply(self: DuelState, action: Action) -> None:
        mover = self.to_act
        DuelState.apply_action(self, action)
        if mover >= 0:
            self.points[mover] += len([card for card in self.hands[mover] if suit(card) == 0])

    state_class = type(
        "TellingDuelState",
        (DuelState,),
        {"apply_action": telling_apply, "public_action": lambda self, action: True},
    )
    game_class = type(
        "TellingDuel",
        (Duel,),
        {"new_initial_state": lambda self, seed=None: state_class(self, seed)},
    )
    with pytest.raises(ConformanceError, match="which the game calls public, seat"):
        check_game(game_class(2), games=5, max_steps=500)


# The whole kit: each game, with everything its plugin declares.

BUILT_IN = [
    ("abluxxen", 2, {}, 2),
    ("fzzzt", 2, {}, 2),
    ("luz", 3, {}, 1),
    ("wizard", 4, {"rounds": "1,3,5"}, 2),
]
"""Each game, its players, its options and the random games of each check: a few seconds."""


@pytest.mark.parametrize(
    ("name", "players", "options", "games"), BUILT_IN, ids=[n for n, *_ in BUILT_IN]
)
def test_each_game_passes_the_whole_kit(
    name: str, players: int, options: dict[str, object], games: int
) -> None:
    check_plugin(name, players, games=games, options=options)


def test_the_duel_passes_the_whole_kit_with_an_encoding(monkeypatch: pytest.MonkeyPatch) -> None:
    encoded = replace(duel_game.PLUGIN, encoding=f"{__name__}:DuelEncoding")
    monkeypatch.setitem(registry.plugins(), "duel", encoded)
    results = list(run_checks(Duel(2), games=3))
    assert [result.check.name for result in results] == [check.name for check in CHECKS]
    assert all(result.status == "ok" for result in results), results


def test_a_check_that_does_not_apply_is_skipped() -> None:
    (encoding,) = (check for check in CHECKS if check.name == "encoding")
    (result,) = run_checks(Duel(2), checks=(encoding,))
    assert (result.status, result.detail) == ("skipped", "the game declares no encoding")


class DuelEncoding(Encoding):
    """The duel as a tensor: the seat's hand, the trick, the cards played, the points."""

    def __init__(self, game: Game[Any]) -> None:
        super().__init__(game, DECK, len(DECK), longest_game=8, score_bounds=(0, 4))
        self.hand = self.field("hand", len(DECK), "the seat's cards")
        self.trick = self.field("trick", len(DECK), "the cards on the trick")
        self.played = self.field("played", len(DECK), "the cards of finished tricks")
        self.points = self.field("points", 2, "each seat's tricks / 4, from the observer")

    def write(self, tensor: Tensor, observation: Observation) -> None:
        seen = cast(DuelObservation, observation)
        add_counts(tensor, self.hand, seen.hand)
        add_counts(tensor, self.trick, seen.trick)
        add_counts(tensor, self.played, seen.played)
        for seat, points in enumerate(self.by_seat(seen, seen.points)):
            one_hot(tensor, self.points, seat, points / 4)


@dataclass(frozen=True)
class NotingDuelObservation(DuelObservation):
    """The duel's observation, noting the cards the seat does not hold for convenience, out
    of its comparison and its view."""

    unseen: tuple[int, ...] = field(default=(), compare=False)

    def to_dict(self) -> dict[str, Any]:
        data = super().to_dict()
        del data["unseen"]
        return data


class LeakyDuelEncoding(DuelEncoding):
    """Writes, besides the duel's tensor, the cards the seat does not hold."""

    def __init__(self, game: Game[Any]) -> None:
        super().__init__(game)
        self.unseen = self.field("unseen", len(DECK), "cards elsewhere")

    def write(self, tensor: Tensor, observation: Observation) -> None:
        super().write(tensor, observation)
        add_counts(tensor, self.unseen, getattr(observation, "unseen", ()))


class NotingDuelState(DuelState):
    def observation(self, seat: Seat | None) -> DuelObservation:
        seen = DuelState.observation(self, seat)
        held = () if seat is None else self.hands[1 - seat]
        return NotingDuelObservation(**seen.__dict__, unseen=tuple(sorted(held)))


class NotingDuel(Duel):
    def new_initial_state(self, seed: int | None = None) -> NotingDuelState:
        return NotingDuelState(self, seed)

    def sample_state(self, observation: Observation, rng: random.Random) -> NotingDuelState:
        sampled = duel_game.sample_state(self, observation, rng)
        sampled.__class__ = NotingDuelState
        return cast(NotingDuelState, sampled)


class OutOfRangeEncoding(DuelEncoding):
    def write(self, tensor: Tensor, observation: Observation) -> None:
        super().write(tensor, observation)
        tensor[self.points.start] = 4.0


class PeekingDuelEncoding(DuelEncoding):
    """Writes, from a state, the other seat's hand as if it were the trick."""

    def write_state(self, tensor: Tensor, state: State, seat: Seat | None) -> None:
        super().write_state(tensor, state, seat)
        if seat is not None:
            add_counts(tensor, self.trick, cast(DuelState, state).hands[1 - seat])


class HandFirstBot:
    """Plays the first card of its hand, whether it follows suit or not."""

    def choose(
        self, observation: Observation, legal_actions: Sequence[Action], rng: random.Random
    ) -> Action:
        hand: tuple[int, ...] = cast(DuelObservation, observation).hand
        return hand[0]


def duel_with(monkeypatch: pytest.MonkeyPatch, game: type[Duel] = Duel, **parts: Any) -> Duel:
    """The duel, installed with ``parts`` of its plugin replaced."""
    declared: GamePlugin = replace(duel_game.PLUGIN, game=game, **parts)
    monkeypatch.setitem(registry.plugins(), "duel", declared)
    return game(2)


def package(
    monkeypatch: pytest.MonkeyPatch, tmp_path: Path, name: str, **changes: str | None
) -> str:
    """A copy of the duel's package under another name, each file named in ``changes``
    rewritten (``None``: left out); its import name."""
    folder = tmp_path / name
    folder.mkdir()
    for source in DUEL_FOLDER.iterdir():
        if source.is_file():
            text = changes.get(source.name.replace(".", "_"), source.read_text("utf-8"))
            if text is not None:
                (folder / source.name).write_text(text, "utf-8")
    monkeypatch.syspath_prepend(str(tmp_path))
    monkeypatch.delitem(sys.modules, name, raising=False)
    return name


def failure(game: Game[Any], check: str) -> str:
    """What the named check says of ``game`` (two random games), which must fail."""
    (chosen,) = (each for each in CHECKS if each.name == check)
    (result,) = run_checks(game, games=2, checks=(chosen,))
    assert result.status == "failed", result
    return result.detail


def test_a_tensor_that_reads_what_the_seat_cannot_see(monkeypatch: pytest.MonkeyPatch) -> None:
    game = duel_with(monkeypatch, NotingDuel, encoding=f"{__name__}:DuelEncoding")
    (hidden,) = (check for check in CHECKS if check.name == "hidden")
    # the duel's own encoding reads only what the observation compares and shows
    assert [result.status for result in run_checks(game, checks=(hidden,))] == ["ok"]
    game = duel_with(monkeypatch, NotingDuel, encoding=f"{__name__}:LeakyDuelEncoding")
    detail = failure(game, "hidden")
    assert re.search(r"step \d+: seat \d's tensor differs between two states it cannot", detail)


def test_a_tensor_from_the_state_that_its_observation_does_not_give(
    monkeypatch: pytest.MonkeyPatch,
) -> None:
    game = duel_with(monkeypatch, encoding=f"{__name__}:PeekingDuelEncoding")
    assert "tensor written from the state differs from its observation's" in failure(
        game, "encoding"
    )


def test_a_tensor_out_of_its_range(monkeypatch: pytest.MonkeyPatch) -> None:
    game = duel_with(monkeypatch, encoding=f"{__name__}:OutOfRangeEncoding")
    assert "tensor leaves [-1.0, 1]" in failure(game, "encoding")


@pytest.mark.parametrize(
    ("start", "complaint"),
    [
        (
            lambda game, seed=None: DuelState(game),
            "started from the seed .* and played alike differ",
        ),
        (
            lambda game, seed=None: DuelState(game, 5),
            "different seeds were the same in all 2 games",
        ),
    ],
    ids=["ignored", "fixed"],
)
def test_a_seed_that_is_ignored(
    monkeypatch: pytest.MonkeyPatch, start: Any, complaint: str
) -> None:
    game_class = type("SeedlessDuel", (Duel,), {"new_initial_state": start})
    detail = failure(duel_with(monkeypatch, game_class), "seeds")
    assert re.search(complaint, detail), detail


def test_a_bot_that_plays_illegal_moves(monkeypatch: pytest.MonkeyPatch) -> None:
    game = duel_with(monkeypatch, heuristic_bot=lambda game: HandFirstBot())
    detail = failure(game, "bot")
    assert re.search(r"game \d \(seed 0\), step \d+: the heuristic bot, in seat \d, chose", detail)
    assert "which is not a legal action" in detail


def test_a_missing_rules_language(monkeypatch: pytest.MonkeyPatch, tmp_path: Path) -> None:
    rules = package(monkeypatch, tmp_path, "duel_rules_en", rules_fr_md=None)
    assert "rules in fr (rules.fr.md in duel_rules_en): missing" in failure(
        duel_with(monkeypatch, rules=rules), "rules"
    )


def test_a_missing_text_and_a_lost_placeholder(
    monkeypatch: pytest.MonkeyPatch, tmp_path: Path
) -> None:
    french = (DUEL_FOLDER / "texts.fr.toml").read_text("utf-8")
    gap = french.replace('prompt = "Jouez une carte"\n', "")
    texts = package(monkeypatch, tmp_path, "duel_texts_gap", texts_fr_toml=gap)
    monkeypatch.setattr(i18n, "_ADDED", [texts])
    i18n.catalogue.cache_clear()
    detail = failure(duel_with(monkeypatch, texts=texts), "texts")
    assert "the text 'duel.board.prompt' (the web board duel.js): missing in fr" in detail
    lost = french.replace("{card} est jouée", "une carte est jouée")
    texts = package(monkeypatch, tmp_path, "duel_texts_lost", texts_fr_toml=lost)
    monkeypatch.setattr(i18n, "_ADDED", [texts])
    i18n.catalogue.cache_clear()
    detail = failure(duel_with(monkeypatch, texts=texts), "texts")
    assert "'duel.board.log_play'" in detail and "en ['card'], fr []" in detail


def test_a_text_that_the_game_names_but_no_catalogue_has(
    monkeypatch: pytest.MonkeyPatch, tmp_path: Path
) -> None:
    source = (DUEL_FOLDER / "view.py").read_text("utf-8")
    view = package(
        monkeypatch, tmp_path, "duel_view_new_key",
        view_py=source.replace('"duel.view"', '"duel.table"'),
    )  # fmt: skip
    detail = failure(duel_with(monkeypatch, terminal_view=f"{view}.view"), "texts")
    assert f"'duel.table' ({view}.view): missing in en" in detail


def test_a_terminal_view_without_news(monkeypatch: pytest.MonkeyPatch, tmp_path: Path) -> None:
    source = (DUEL_FOLDER / "view.py").read_text("utf-8")
    view = package(monkeypatch, tmp_path, "duel_view_no_news", view_py=source.split("def news")[0])
    assert "exports no news()" in failure(
        duel_with(monkeypatch, terminal_view=f"{view}.view"), "terminal_view"
    )


@pytest.mark.parametrize(
    ("changes", "complaint"),
    [
        ({"duel_css": None}, "duel.css is missing from duel_board"),
        (
            {"duel_js": DUEL_BOARD.replace(" prompt, handles,", "")},
            "the default export lacks prompt, handles",
        ),
        (
            {"duel_js": DUEL_BOARD.replace("sheet };", "sheet, moveWords };")},
            "exports moveWords, which it does not define",
        ),
        ({"duel_js": DUEL_BOARD.split("export default")[0]}, "no default export of its parts"),
        (
            {"duel_js": 'import { helper } from "./helper.js";\n' + DUEL_BOARD},
            "imports './helper.js', which is not a module of the platform",
        ),
    ],
    ids=["no-style", "parts-missing", "part-undefined", "no-default-export", "own-import"],
)
def test_a_web_board_the_browser_cannot_load(
    monkeypatch: pytest.MonkeyPatch,
    tmp_path: Path,
    changes: dict[str, str | None],
    complaint: str,
) -> None:
    board = package(monkeypatch, tmp_path, "duel_board", **changes)
    assert complaint in failure(duel_with(monkeypatch, web_board=board), "web_board")


def test_check_plugin_names_every_failed_check(
    monkeypatch: pytest.MonkeyPatch, tmp_path: Path
) -> None:
    rules = package(monkeypatch, tmp_path, "duel_rules_only_en", rules_fr_md=None)
    duel_with(monkeypatch, rules=rules, heuristic_bot=lambda game: HandFirstBot())
    with pytest.raises(ConformanceError) as raised:
        check_plugin("duel", games=2)
    named = [line.split(":")[0] for line in str(raised.value).splitlines()]
    assert named == ["bot", "rules"]


# The command line.

runner = CliRunner()


def test_the_check_command_prints_each_check(monkeypatch: pytest.MonkeyPatch) -> None:
    result = runner.invoke(app, ["check", "duel", "--games", "2", "--seed", "4", "--lang", "en"])
    assert result.exit_code == 0, result.output
    assert "duel — 2 players, 2 game(s) per check, seed 4" in result.output
    for check in CHECKS:
        status = "skipped" if check.name == "encoding" else "ok"
        assert re.search(rf"{check.name}\s+{status}\s", result.output), check.name
    assert "the game declares no encoding" in result.output
    assert result.output.rstrip().endswith("Every check passed.")


def test_the_check_command_fails_with_the_broken_checks(
    monkeypatch: pytest.MonkeyPatch, tmp_path: Path
) -> None:
    rules = package(monkeypatch, tmp_path, "duel_rules_only_en_cli", rules_fr_md=None)
    duel_with(monkeypatch, rules=rules)
    result = runner.invoke(app, ["check", "duel", "--games", "1", "--lang", "fr"])
    assert result.exit_code == 1, result.output
    assert re.search(r"✗\s+rules\s+échec\s+Les règles", result.output)
    assert "rules.fr.md" in result.output
    assert "le jeu ne déclare pas d'encodage" in result.output  # why encoding is skipped
    assert re.search(r"✓\s+contract\s+ok", result.output)
    assert "1 vérification(s) en échec." in result.output


def test_check_all_runs_every_installed_game(monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setattr(registry, "_plugins", {"duel": duel_game.PLUGIN})
    result = runner.invoke(app, ["check", "--all", "--games", "1", "--lang", "en"])
    assert result.exit_code == 0, result.output
    assert "duel — 2 players" in result.output


@pytest.mark.parametrize(
    "arguments",
    [[], ["duel", "--all"], ["--all", "--players", "2"], ["nothing"], ["duel", "--players", "7"]],
    ids=["no-game", "game-and-all", "all-with-players", "unknown-game", "bad-players"],
)
def test_the_check_command_refuses_what_it_cannot_run(arguments: list[str]) -> None:
    result = runner.invoke(app, ["check", *arguments, "--lang", "en"])
    assert result.exit_code == 2, result.output
    assert "✗" in result.output and "Traceback" not in result.output
