"""What a researcher meets first: the arena's intervals, saved records and states at any step,
observations read back from the server's form, missing extras, options and bounds."""

from __future__ import annotations

import math
import random
import statistics
import subprocess
import sys
from pathlib import Path

import orjson
import pytest
from typer.testing import CliRunner

from tapisvert import CHANCE, RecordError, load_game
from tapisvert.arena import run_arena
from tapisvert.bots import bot_names
from tapisvert.cli import main
from tapisvert.cli.main import app
from tapisvert.core.records import load_record, parse_record, record_of
from tapisvert.core.registry import game_class, game_names, plugin
from tapisvert.core.stats import grouped_mean_interval, mean_interval, t_quantile
from tapisvert.core.wire import DataError
from tapisvert.encoding import encoding_for
from tapisvert.i18n import translate

from conftest import random_playthrough

runner = CliRunner()


@pytest.mark.parametrize(
    ("degrees", "printed"),
    [(1, 12.7062), (2, 4.3027), (3, 3.1824), (10, 2.2281), (30, 2.0423), (120, 1.9799)],
)
def test_the_t_quantile_matches_the_printed_tables(degrees: int, printed: float) -> None:
    assert t_quantile(degrees) == pytest.approx(printed, abs=5e-5)


def test_deal_means_give_the_interval_a_hand_computes_and_not_the_naive_one() -> None:
    # Three deals of three rotations: the rotations differ by the seat's luck (±20), the
    # deals' means by one point: 4, 5 and 6.
    values = [-16.0, 4.0, 24.0, -15.0, 5.0, 25.0, -14.0, 6.0, 26.0]
    deals = [0, 0, 0, 1, 1, 1, 2, 2, 2]
    by_deal = grouped_mean_interval(values, deals)
    # By hand: mean 5, standard deviation of (4, 5, 6) is 1, so the standard error is
    # 1/√3; t(0.975, 2 degrees of freedom) = 4.302653.
    half = 4.302653 / math.sqrt(3)
    assert by_deal.count == 3
    assert by_deal.mean == pytest.approx(5)
    assert (by_deal.low, by_deal.high) == pytest.approx((5 - half, 5 + half), abs=1e-6)
    naive = mean_interval(values)
    assert naive.count == 9 and naive.mean == pytest.approx(5)
    assert naive.high - naive.low > 5 * (by_deal.high - by_deal.low)


def test_the_arena_counts_deals_not_games() -> None:
    players, deals = 3, 4
    report = run_arena(
        "wizard", ["easy", "random", "random"], deals=deals, seed=3, options={"rounds": "first5"}
    )
    entry = report.entries[0]
    assert entry.games == players * deals
    deal_means = [
        statistics.fmean(entry.margins[deal * players : (deal + 1) * players])
        for deal in range(deals)
    ]
    half = t_quantile(deals - 1) * statistics.stdev(deal_means) / math.sqrt(deals)
    estimate = entry.margin_per_game
    assert estimate.count == deals
    assert (estimate.low, estimate.high) == pytest.approx(
        (statistics.fmean(deal_means) - half, statistics.fmean(deal_means) + half)
    )
    assert "t-interval" in report.to_dict()["intervals"]


def test_arena_and_simulate_save_one_record_per_game_in_order(tmp_path: Path) -> None:
    folder = tmp_path / "arena"
    result = runner.invoke(
        app,
        [
            "arena", "wizard", "--bots", "easy,random,random", "--games", "4", "--seed", "2",
            "--workers", "1", "--plots", str(tmp_path / "plots"), "--save-records", str(folder),
            "-o", "rounds=first5", "--lang", "en",
        ],
    )  # fmt: skip
    assert result.exit_code == 0, result.output
    assert "t-intervals over the means of the 4 deals" in " ".join(result.output.split())
    names = sorted(path.name for path in folder.iterdir())
    assert names == [
        f"wizard-{deal}-{rotation}.txt" for deal in range(1, 5) for rotation in (1, 2, 3)
    ]
    first = load_record((folder / "wizard-1-2.txt").read_text("utf-8"))
    assert first.seats == ["3:random", "1:easy", "2:random"]  # rotation 2: entry 1 in seat 2
    assert first.result is not None

    folder = tmp_path / "simulate"
    result = runner.invoke(
        app,
        [
            "simulate", "wizard", "--games", "12", "--bots", "random,random,random",
            "--save-records", str(folder), "-o", "rounds=first5", "--lang", "en",
        ],
    )  # fmt: skip
    assert result.exit_code == 0, result.output
    names = [path.name for path in sorted(folder.iterdir())]
    assert names == [f"wizard-{number:02d}.txt" for number in range(1, 13)]
    assert all(load_record(path.read_text("utf-8")).result for path in folder.iterdir())


@pytest.fixture
def record_text() -> str:
    game = load_game("wizard", players=3, rounds="1,2")
    final = random_playthrough(game.new_initial_state(), random.Random(5))[-1]
    return record_of(final, ["ana", "bea", "carl"]).to_text()


def test_state_at_is_a_copy_where_steps_yield_one_live_state(record_text: str) -> None:
    record = parse_record(record_text)
    steps = list(record.steps())
    assert all(step.state is steps[0].state for step in steps)  # documented: one live state
    game = record.new_game()
    for number in (0, 1, 7, len(record.actions)):
        expected = game.new_initial_state()
        for text in record.actions[:number]:
            expected.apply_string(text)
        state = record.state_at(number)
        assert state.history() == expected.history()
        assert state.observation(None) == expected.observation(None)
    early, later = record.state_at(3), record.state_at(4)
    assert early is not later and len(early.history()) == 3 and len(later.history()) == 4
    with pytest.raises(RecordError, match=f"there is no step {len(record.actions) + 1} "):
        record.state_at(len(record.actions) + 1)
    with pytest.raises(RecordError, match="there is no step -1"):
        record.state_at(-1)


def test_replay_shows_the_table_at_a_step(record_text: str, tmp_path: Path) -> None:
    path = tmp_path / "game.txt"
    path.write_text(record_text, "utf-8")
    record = parse_record(record_text)
    hand = record.state_at(5).observation(1).to_dict()["hand"]
    result = runner.invoke(app, ["replay", str(path), "--step", "5", "--seat", "2"])
    assert result.exit_code == 0, result.output
    lines = result.output.splitlines()
    assert "5. chance:" in result.output and "6. " not in result.output
    assert "The table after step 5, as P2 sees it" in result.output
    assert all(card in lines[-1] for card in hand)
    result = runner.invoke(app, ["replay", str(path), "--step", "0", "--lang", "en"])
    assert result.exit_code == 0 and "1. chance" not in result.output
    assert result.output.count("The table after step 0") == 3
    result = runner.invoke(app, ["replay", str(path), "--step", "9999", "--lang", "en"])
    assert result.exit_code == 2
    assert f"the record has {len(record.actions)} moves" in result.output


GAMES_AND_OPTIONS = [
    *((name, {}) for name in game_names()),
    ("fzzzt", {"versus_scoring": "true"}),
    ("wizard", {"hidden_bids": "true"}),
]


@pytest.mark.parametrize(("name", "options"), GAMES_AND_OPTIONS)
def test_an_observation_comes_back_from_what_the_server_sends(
    name: str, options: dict[str, str]
) -> None:
    rng = random.Random(name)
    cls = game_class(name).observation_class
    checked = 0
    fewest = load_game(name, **options).players
    games = [
        load_game(name, count, **options)
        for count in range(fewest, game_class(name).max_players + 1)
    ]
    if not options:
        games += [
            load_game(name, each.players, **each.options) for each in plugin(name).small_variants
        ]
    for game in games:
        players = game.players
        states = random_playthrough(game.new_initial_state(rng.randrange(1 << 30)), rng)
        for state in [*rng.sample(states, min(len(states), 40)), states[-1]]:
            for seat in [None, *range(players)]:
                sent = orjson.loads(orjson.dumps(state.view(seat)))  # the frame's JSON
                assert cls.from_dict(sent) == state.observation(seat)
                checked += 1
    assert checked > 300


def test_a_view_that_is_not_one_says_what_does_not_fit() -> None:
    state = load_game("wizard", 3).new_initial_state(1)
    state.resolve_chance()
    sent = orjson.loads(orjson.dumps(state.view(0)))
    cls = type(state.observation(0))
    with pytest.raises(DataError, match="not the dict form of a WizardObservation: missing 'hand'"):
        cls.from_dict({key: value for key, value in sent.items() if key != "hand"})
    with pytest.raises(DataError, match="Z9"):
        cls.from_dict(sent | {"hand": ["Z9"]})
    with pytest.raises(DataError, match="scores"):
        cls.from_dict(sent | {"scores": "high"})


def test_the_arena_on_ray_without_ray_names_the_extra(
    monkeypatch: pytest.MonkeyPatch, tmp_path: Path
) -> None:
    monkeypatch.setitem(sys.modules, "ray", None)  # what an installation without Ray imports
    result = runner.invoke(
        app,
        [
            "arena", "wizard", "--bots", "random,random,random", "--games", "1", "--ray", "local",
            "--plots", str(tmp_path), "-o", "rounds=1", "--lang", "en",
        ],
    )  # fmt: skip
    assert result.exit_code == 2
    said = " ".join(result.output.split())
    assert said.startswith("✗ --ray (the arena on Ray) needs ray, which is not installed")
    assert "pip install 'tapisvert[ray]'" in said and "scripts/setup --research" in said
    assert "Traceback" not in result.output


@pytest.mark.parametrize(
    ("module", "missing", "extra"),
    [
        ("tapisvert.encoding", "numpy", "research"),
        ("tapisvert.envs.gymnasium", "gymnasium", "research"),
        ("tapisvert.envs.pettingzoo", "pettingzoo", "research"),
        ("tapisvert.envs.openspiel", "pyspiel", "openspiel"),
    ],
)
def test_a_research_module_without_its_package_names_the_extra(
    module: str, missing: str, extra: str
) -> None:
    """In an interpreter of its own, as a user meets it: a compiled module (``scripts/compile``)
    once imported is not imported again, even taken out of ``sys.modules``."""
    script = "\n".join(
        [
            "import sys",
            f"sys.modules[{missing!r}] = None",
            "from tapisvert.core.extras import MissingExtraError",
            "try:",
            f"    __import__({module!r})",
            "except MissingExtraError as error:",
            "    assert isinstance(error, ImportError)",
            "    print(error)",
            "else:",
            "    raise SystemExit('imported without it')",
        ]
    )
    result = subprocess.run(
        [sys.executable, "-c", script], capture_output=True, text=True, timeout=120, check=False
    )
    assert result.returncode == 0, result.stdout + result.stderr
    said = result.stdout.strip()
    feature = said.split(" needs ")[0]
    assert module.startswith(feature)  # the module, or the part of tapisvert.envs it imports
    assert f" needs {missing}, which is not installed" in said
    assert f"install the {extra} extra (pip install 'tapisvert[{extra}]'" in said


@pytest.mark.parametrize(
    ("language", "words"),
    [("en", "needs pyspiel, which is not installed"), ("fr", "demande pyspiel, qui n'est pas")],
)
def test_the_openspiel_bot_without_openspiel_names_the_extra(
    monkeypatch: pytest.MonkeyPatch, tmp_path: Path, language: str, words: str
) -> None:
    """With the research extra alone, the bot is not an unknown one: it needs another extra."""
    bot_names("wizard")  # the bots registered before, as where OpenSpiel is installed
    monkeypatch.setitem(sys.modules, "pyspiel", None)  # what an installation without it imports
    result = runner.invoke(
        app,
        [
            "arena", "wizard", "--bots", "openspiel-ismcts,easy,easy", "--games", "1",
            "--plots", str(tmp_path), "-o", "rounds=1", "--lang", language,
        ],
    )  # fmt: skip
    assert result.exit_code == 2
    said = " ".join(result.output.split())
    assert said.startswith(f"✗ openspiel-ismcts {words}")
    assert "pip install 'tapisvert[openspiel]'" in said and "Traceback" not in result.output


def run_without(missing: list[str], lines: list[str]) -> str:
    """What ``lines`` print in an interpreter of its own where ``missing`` cannot be imported
    (a compiled module, once imported, is not imported again)."""
    hidden = [f"sys.modules[{module!r}] = None" for module in missing]
    result = subprocess.run(
        [sys.executable, "-c", "\n".join(["import sys", *hidden, *lines])],
        capture_output=True,
        text=True,
        timeout=120,
        check=False,
    )
    assert result.returncode == 0, result.stdout + result.stderr
    return result.stdout.strip()


def test_without_openspiel_its_bot_is_not_listed_and_says_what_to_install() -> None:
    said = run_without(
        ["pyspiel"],
        [
            "from tapisvert import load_game",
            "from tapisvert.bots import bot_names, make_bot",
            "from tapisvert.core.extras import MissingExtraError",
            "print('openspiel-ismcts' in bot_names('wizard'))",
            "try:",
            "    make_bot('openspiel-ismcts', load_game('wizard', 3))",
            "except MissingExtraError as error:",
            "    print(error)",
        ],
    )
    listed, error = said.splitlines()
    assert listed == "False"
    assert error.startswith("openspiel-ismcts needs pyspiel, which is not installed")
    assert "install the openspiel extra (pip install 'tapisvert[openspiel]'" in error


def test_the_openspiel_adapter_names_every_missing_package_at_once() -> None:
    """Without any extra: librt (the tensors') and pyspiel in one message, and one extra that
    installs both, rather than one package, then after installing it, the next."""
    said = run_without(
        ["librt", "pyspiel"],
        [
            "from tapisvert.core.extras import MissingExtraError",
            "try:",
            "    from tapisvert.envs.openspiel import register",
            "except MissingExtraError as error:",
            "    print(error)",
            "    print(error.render('fr'))",
        ],
    )
    english, french = said.splitlines()
    assert english.startswith(
        "tapisvert.envs.openspiel needs librt, pyspiel, which are not installed: "
        "install the openspiel extra (pip install 'tapisvert[openspiel]'"
    )
    assert french.startswith(
        "tapisvert.envs.openspiel demande librt, pyspiel, qui ne sont pas installés : "
        "installez l'extra openspiel"
    )


def test_fzzzt_bounds_are_the_rules_own() -> None:
    # Four players: the starting robots score 1 + 2 + 2; at worst the 4 Fzzzt! cards (−4)
    # and the 10 units never completed (−67); at best the 24 conveyor robots' 48 points and,
    # from 3 + 24 + 2 robots and 5 phases, P01 once (4 robots, 13), P02 and P03 once
    # (3 each, 18), P06, P07, P09 twice (4 each, 36), P10 five times (15) and P04 once
    # with the last 2 robots (5).
    assert load_game("fzzzt", 4).score_bounds == (5 - 4 - 67, 5 + 48 + 13 + 18 + 36 + 15 + 5)
    assert encoding_for(load_game("fzzzt", 4)).score_bounds == (-66, 140)


@pytest.mark.parametrize(
    "options",
    [{}, {"versus_scoring": "true"}, {"unused_starting_robots": "box"},
     {"unlimited_final_placement": "true"}],
)  # fmt: skip
def test_fzzzt_scores_stay_within_the_bounds(options: dict[str, str]) -> None:
    rng = random.Random(7)
    for players in (2, 3, 4):
        game = load_game("fzzzt", players, **options)
        low, high = game.score_bounds
        for _ in range(6):
            state = game.new_initial_state(rng.randrange(1 << 30))
            while not state.is_terminal():
                if state.current_player() == CHANCE:
                    state.resolve_chance()
                else:
                    state.apply_action(rng.choice(state.legal_actions()))
            assert all(low <= score <= high for score in state.returns())


def test_describe_says_a_field_is_empty_rather_than_printing_a_backward_range() -> None:
    encoding = encoding_for(load_game("abluxxen", 4))
    empty = next(field for field in encoding.fields if field.size == 0)
    line = next(line for line in encoding.describe().splitlines() if f" {empty.name}:" in line)
    assert f"{empty.start}–{empty.start - 1}" not in line
    assert line.strip().startswith(f"{empty.name}: ") and line.endswith("(empty here: no values)")


@pytest.mark.parametrize("language", ["en", "fr"])
def test_the_arena_table_keeps_every_header_whole_at_80_columns(
    monkeypatch: pytest.MonkeyPatch, tmp_path: Path, language: str
) -> None:
    monkeypatch.setattr(main.console, "width", 80)
    result = runner.invoke(
        app,
        [
            "arena", "wizard", "--bots", "easy,random,random,random", "--games", "2",
            "--workers", "1", "--plots", str(tmp_path), "-o", "rounds=1", "--lang", language,
        ],
    )  # fmt: skip
    assert result.exit_code == 0, result.output
    lines = result.output.splitlines()
    assert max(map(len, lines)) <= 80 and "…" not in result.output
    words = " ".join(" ".join(line.split("│")) for line in lines).split()
    for key in ("cli.margin_game", "cli.think", "cli.rating", "cli.win_rate", "cli.bids_made"):
        assert all(word in words for word in translate(key, language).split())
