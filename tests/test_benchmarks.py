"""The benchmark scripts keep running: a short run of each, its figures printed (not judged)."""

from __future__ import annotations

import ast
import os
import re
import shutil
import statistics
import subprocess
import sys
from pathlib import Path

import pytest

from redis_support import REDIS_URL, redis_answers
from tapisvert.compiled import engine_in_use
from tapisvert.core.registry import game_names

from server_support import postgres_url

pytestmark = pytest.mark.slow

BENCHMARKS = Path(__file__).resolve().parent.parent / "benchmarks"


def run_benchmark(script: str, *arguments: str, **environment: str) -> str:
    """What a short run of ``benchmarks/<script>`` prints."""
    result = subprocess.run(
        [sys.executable, str(BENCHMARKS / script), *arguments],
        capture_output=True,
        text=True,
        timeout=600,
        env={**os.environ, **environment},
    )
    printed = f"{result.stdout[-3000:]}\n{result.stderr[-6000:]}"
    assert result.returncode == 0, f"{script} exited with {result.returncode}\n{printed}"
    return result.stdout


def test_engine_speed_runs_and_prints_its_figures() -> None:
    """Both engines where the compiled one is built (``scripts/test`` builds it), else the pure."""
    printed = run_benchmark("engine_speed.py", "--seconds", "0.6")
    lines = printed.splitlines()
    engines = ["pure"] if "The compiled engine (mypyc) is" in printed else ["pure", "compiled"]
    for comparison in ("(a) decisions/s", "(b) hands/s", "(c) hands/s"):
        first = next(index for index, line in enumerate(lines) if line.startswith(comparison))
        for line, engine in zip(lines[first:], engines, strict=False):
            assert line[59:].split()[0] == engine
            assert float(line.split()[-1]) > 0  # the ratio against OpenSpiel
    for game in game_names():
        first = next(index for index, line in enumerate(lines) if line.startswith(game))
        for line, engine in zip(lines[first:], engines, strict=False):
            kind, *figures = line[25:].split()
            decisions, games, clones = (float(value.replace(",", "")) for value in figures)
            assert kind == engine and decisions > games > 0 and clones > 0
    first = next(index for index, line in enumerate(lines) if line.startswith("Wizard / oh_hell"))
    for line, engine in zip(lines[first:], engines, strict=True):
        assert line[59:].split()[0] == engine
        assert float(line.split()[-1]) > 0  # the ratio against OpenSpiel's clone


def test_engine_profile_runs_the_same_work_on_both_sides() -> None:
    """A fixed amount of work: each side plays its dealt positions to the end, or searches the
    first decision of a hand with every iteration asked (OpenSpiel's counted as it runs)."""
    printed = run_benchmark("engine_profile.py", "decisions", "--count", "3")
    played = dict(line.split() for line in printed.splitlines())
    assert set(played) == {"ours", "openspiel"}
    assert all(3 * 52 <= int(count) <= 3 * 60 for count in played.values())
    printed = run_benchmark("engine_profile.py", "search", "--count", "1")
    assert dict(line.split() for line in printed.splitlines()) == {
        "ours": "1000",
        "openspiel": "1000",
    }


def test_bot_strength_runs_and_prints_its_figures() -> None:
    printed = run_benchmark(
        "bot_strength.py",
        *("--deals", "1", "--full-games", "0", "--games", "abluxxen"),
        *("--seconds", "0.5", "--rounds", "2", "--workers", "1", "--levels", "medium,hard"),
        TAPISVERT_SEARCH_SCALE="0.05",
    )
    lines = printed.splitlines()
    assert "1,000 iterations a decision, UCT constant 0.7 on both sides" in printed
    engines = ["pure"] if "The compiled engine (mypyc) is" in printed else ["pure", "compiled"]
    speed = lines.index(next(line for line in lines if line.startswith("search speed")))
    for line, engine in zip(lines[speed + 2 :], engines, strict=False):
        assert line.split()[0] == engine and "it/s" in line
    for game in game_names():
        first = next(index for index, line in enumerate(lines) if line.split()[:1] == [game])
        for line, engine in zip(lines[first:], engines, strict=False):
            kind, budget, decisions, ms, *_ = line.removeprefix(f"  {game}").split()
            assert kind == engine and int(budget) > 0 and int(decisions) > 0 and float(ms) > 0
    assert f"the games below run on the {engine_in_use()} engine" in printed  # as this one
    assert "abluxxen: medium,easy,easy,easy" in printed
    assert "abluxxen: hard,easy,easy,easy" in printed
    assert "abluxxen: easy,random,random,random" in printed
    assert "margin/game" in printed
    assert "abluxxen: medium strictly between easy and hard: " in printed


def test_server_load_runs_and_checks_persistence() -> None:
    printed = run_benchmark(
        "server_load.py",
        *("--game", "fzzzt", "--tables", "3"),
        *("--seconds", "1", "--warmup", "0.5", "--think", "0.02"),
    )
    header, *rows = printed.strip().splitlines()[-2:]
    assert "the per-socket rate limit is raised to 1,000,000 messages a second" in printed
    # the tables reach the windows at every stage of their games (--spread, the default)
    assert re.search(r"the tables are spread over their games first: .*\(fzzzt \d+\)", printed)
    assert "the peer's pings and the moves alternate: 4 windows of 0.25 s each" in printed
    assert "moves/s" in header and "p99 ms" in header
    assert [row.split()[1] for row in rows] == ["fzzzt"]
    for row in rows:
        assert row.split()[0] == "1" and row.split()[2] == "3" and row.split()[-1] == "all"
        assert float(row.split()[4]) > 0
        assert float(row.split()[8]) > 0  # the server's CPU, read from /proc
        assert float(row.split()[9]) > 0 and float(row.split()[10]) > 0  # µs/move: all, loop
        assert float(row.split()[13]) > 0  # the peer's pings/s, between the windows of moves


def postgres_and_redis() -> str:
    """The PostgreSQL server's URL, once it and Redis answer; else the test is skipped."""
    if not redis_answers():
        pytest.skip(f"no Redis server answers at {REDIS_URL} (set TAPISVERT_TEST_REDIS)")
    base = postgres_url()
    if base is None:
        pytest.skip("no PostgreSQL server answers on 127.0.0.1:5432 (set TAPISVERT_TEST_POSTGRES)")
    return base


def test_server_load_runs_two_nodes_with_relays_and_kills_them_at_the_end() -> None:
    base = postgres_and_redis()
    printed = run_benchmark(
        "server_load.py",
        *("--game", "wizard", "--tables", "4", "--nodes", "2", "--relays", "1"),
        *("--seconds", "1", "--warmup", "0.5", "--think", "0.02", "--no-spread"),
        *("--bus", REDIS_URL, "--database-url", base),
    )
    header, row = printed.strip().splitlines()[-2:]
    assert header.split()[:3] == ["bus", "nodes", "game"]
    assert row.split()[:4] == ["redis", "2", "wizard", "4"]
    assert float(row.split()[5]) > 0  # moves/s
    assert float(row.split()[12]) > 0  # the relays' CPU: they held the sockets
    assert row.split()[-1] == "all"  # every acknowledged move found after kill -9


def test_rolling_restart_runs_and_loses_no_move() -> None:
    base = postgres_and_redis()
    printed = run_benchmark(
        "rolling_restart.py",
        *("--tables", "2", "--warmup", "0.5", "--seconds", "1", "--think", "0.02"),
        *("--bus", REDIS_URL, "--database-url", base),
    )
    counts = dict(re.findall(r"([a-z][a-z ]*): (\d+)", printed.splitlines()[1]))
    assert int(counts["acknowledged moves"]) > 0 and int(counts["reconnections"]) > 0
    assert counts["lost"] == counts["logged twice"] == counts["acknowledged twice"] == "0"


def test_server_load_runs_with_the_servers_bots_without_and_with_a_redis_bus() -> None:
    """With Redis, each setting is measured twice, side by side: the in-process bus, then
    Redis; without it, the in-process bus alone."""
    bus = ("--bus", REDIS_URL) if redis_answers() else ()
    printed = run_benchmark(
        "server_load.py",
        *("--game", "luz", "--tables", "2", "--server-bots", "medium", "--bot-workers", "1"),
        *("--seconds", "2", "--warmup", "0.5", "--think", "0.02", *bus),
        TAPISVERT_SEARCH_SCALE="0.05",
    )
    header, *rows = printed.strip().splitlines()[-1 - (1 + len(bus) // 2) :]
    assert header.split()[-4:] == ["bot", "moves/s", "workers", "cpu"]
    if bus:
        assert header.split()[0] == "bus"
        assert [row.split()[0] for row in rows] == ["local", "redis"]
    sockets = header.split().index("sockets")  # the names before it are one word each
    for row in rows:
        assert row.split()[sockets] == "2"  # one socket a table
        assert row.split()[-3] == "all"  # persisted
        assert float(row.split()[-2]) > 0  # the bots played


def test_view_cost_runs_and_compares_with_an_earlier_version() -> None:
    """One game: each game and each side is a process of its own, and every game's views
    are played through in ``test_server_games``."""
    printed = run_benchmark(
        "view_cost.py", "--games", "1", "--repeats", "1", "--before", "HEAD", "--game", "wizard"
    )
    header, *rows = printed.strip().splitlines()[-2:]
    assert "before" in header and "ratio" in header
    assert [row.split()[0] for row in rows] == ["wizard"]
    for row in rows:
        assert float(row.split()[-1]) > 0


def test_game_end_cost_runs_and_compares_with_an_earlier_version() -> None:
    printed = run_benchmark(
        "game_end_cost.py", "--games", "3", "--repeats", "1", "--before", "HEAD"
    )
    header, *rows = printed.strip().splitlines()[-3:]
    assert header.split() == ["case", "now", "before", "ratio"]
    assert [row.split()[0] for row in rows] == ["guests", "rated"]
    for row in rows:
        assert all(float(value) > 0 for value in row.split()[1:])


def _interface_row(printed: str, row: str) -> tuple[list[float], list[tuple[float, float]]]:
    """A row of ``interface_cost.py``: its figures, then each ratio's range of rounds."""
    (words,) = [line.split() for line in printed.splitlines() if line.split()[:1] == [row]]
    figures = [float(word.replace(",", "")) for word in words[1:] if not word.startswith("[")]
    ranges = [
        (float(low), float(high))
        for low, high in (word.strip("[]").split("–") for word in words if word.startswith("["))
    ]
    return figures, ranges


def test_interface_cost_runs_and_prints_its_figures() -> None:
    printed = run_benchmark("interface_cost.py", "--seconds", "0.3")
    for game in [*game_names(), "wizard-12"]:
        figures, ranges = _interface_row(printed, game)
        assert len(figures) == 8 and all(figure > 0 for figure in figures)
        (tensor_low, tensor_high), (vector_low, vector_high) = ranges
        ratio, speedup = figures[2], figures[7]
        assert tensor_low - 0.005 <= ratio <= tensor_high + 0.005
        assert vector_low - 0.05 <= speedup <= vector_high + 0.05


def test_interface_cost_compares_tensors_with_an_earlier_version() -> None:
    """Two rounds, briefly, against HEAD: each side's decisions/s, and the ratio their
    medians come near (the median of the rounds' ratios)."""
    printed = run_benchmark(
        "interface_cost.py",
        "--game",
        "luz",
        "--before",
        "HEAD",
        "--rounds",
        "2",
        "--seconds",
        "0.3",
    )
    assert "against HEAD" in printed
    (row,) = [line.split() for line in printed.splitlines() if line.split()[:1] == ["luz"]]
    before, now, ratio = (float(value.replace(",", "")) for value in row[1:4])
    low, high = map(float, row[4].split("–"))
    assert before > 0 and now > 0 and 0 < low <= ratio <= high


def test_interface_cost_compares_tensors_and_vector_envs_for_one_row() -> None:
    """One row, briefly, in one round: the ratios are those of the figures beside them."""
    printed = run_benchmark(
        *("interface_cost.py", "--game", "wizard", "--seconds", "0.2", "--tables", "4"),
        *("--rounds", "1"),
    )
    assert "8 SingleSeatEnv, 4 tables" in printed
    assert "medians of 1 alternating rounds" in printed
    figures, ranges = _interface_row(printed, "wizard")
    engine, tensor, ratio, pettingzoo, openspiel, sync, vector, speedup = figures
    assert min(engine, tensor, pettingzoo, openspiel, sync, vector) > 0
    assert ratio == pytest.approx(tensor / engine, abs=0.01)
    assert speedup == pytest.approx(vector / sync, abs=0.1)
    assert ranges == [(ratio, ratio), (speedup, speedup)]


def test_interface_instructions_count_the_same_games_on_both_sides() -> None:
    """The games each side of the count plays (valgrind counts them around this): the same
    decisions, since both draw from the same generator."""
    engine = run_benchmark("interface_instructions.py", "--count", "luz", "engine", "2")
    tensor = run_benchmark("interface_instructions.py", "--count", "luz", "tensor+mask", "2")
    assert engine == tensor
    assert int(engine.split()[-1]) > 100


def test_review_calibration_runs_and_plots(tmp_path: Path) -> None:
    plot = tmp_path / "calibration.png"
    printed = run_benchmark(
        "review_calibration.py",
        *("--game", "wizard", "--option", "rounds=3", "--games", "4"),
        *("--samples", "4", "--play-outs", "2", "--plot", str(plot)),
    )
    assert "4 games" in printed
    assert "realised loss on predicted loss: slope" in printed
    assert "points scored on expected points: slope" in printed
    assert plot.stat().st_size > 10_000


def test_quota_cost_runs_and_both_counters_refuse_alike() -> None:
    printed = run_benchmark("quota_cost.py", "--people", "200", "--seconds", "1", "--rate", "300")
    rows = [
        line.split() for line in printed.splitlines() if line.startswith(("tapisvert", "limits M"))
    ]
    (ours_lines, ours_refused, ours_cpu), (their_lines, their_refused, their_cpu) = (
        (int(row[-3]), int(row[-2]), float(row[-1])) for row in rows
    )
    assert ours_lines == their_lines >= 300
    assert ours_refused == their_refused > 0  # 10 talkers, 30 lines each: 20 pass
    assert ours_cpu >= 0 and their_cpu > 0
    assert "limits / tapisvert cpu:" in printed


def test_export_cost_runs_and_reads_back_every_game() -> None:
    printed = run_benchmark("export_cost.py", "--games", "3")
    assert printed.startswith("3 games of 4-player Wizard")
    figures = dict(line.split(":", 1) for line in printed.splitlines()[1:])
    assert set(figures) == {
        "export",
        "records one by one",
        "export / records",
        "reading, step by step",
        "a page's read",
    }
    assert float(figures["export / records"]) > 0


def test_abuse_runs_the_flood_from_many_sockets_and_the_replay_race() -> None:
    """The flood from one address's many sockets and the replay race, briefly (~30 s)."""
    printed = run_benchmark(
        "abuse.py",
        *("--only", "flood-sockets", "replays", "--seconds", "2", "--pingers", "3"),
        *("--flood-guests", "2", "--flood-sockets", "3", "--replayers", "3", "--think", "0.03"),
    )
    lines = printed.splitlines()

    def line(start: str) -> str:
        return next(line for line in lines if line.startswith(start))

    def numbers(text: str) -> list[int]:
        return [int(number.replace(",", "")) for number in re.findall(r"\b\d[\d,]*\b", text)]

    # The flood: the others pinged alone and during it, the target printed beside the
    # measured p99, the flood's connections and messages counted.
    assert "2 guests x 3 sockets = 6 sockets" in printed
    assert numbers(line("others alone"))[0] > 0
    assert numbers(line("during the flood"))[0] > 0
    assert float(line("p99 ratio (flood / alone):").split()[-1]) > 0
    target = line("target: others' p99 <= 50 ms during the flood; measured ")
    assert target.endswith((" ms: pass", " ms: fail"))
    found = re.match(
        r"flood connections: ([\d,]+) opened, ([\d,]+) greeted, ([\d,]+) of them cut off; "
        r"([\d,]+) refused",
        line("flood connections:"),
    )
    assert found is not None
    opened, greeted, cut, refused = numbers(" ".join(found.groups()))
    assert opened == greeted + refused >= 6 and greeted > 0 and cut <= greeted
    found = re.match(
        r"flood messages: ([\d,]+) sent, ([\d,]+) got through, ([\d,]+) refused .*, "
        r"(-?[\d,]+) never answered",
        line("flood messages:"),
    )
    assert found is not None
    sent, through, errors = numbers(" ".join(found.groups()[:3]))
    assert sent > 0 and through + errors <= sent

    # The replay race: no 500 among the replay answers, the live game finished with every
    # move acknowledged and no error, the others pinged meanwhile, the memory printed.
    statuses = line("replay answers by status:")
    answers = ast.literal_eval(statuses.split(": ", 1)[1].split("  (")[0])
    assert answers.get(200, 0) > 0 and set(answers) <= {200, 429, 503}
    assert "(500: 0)" in statuses and "failed requests: none" in statuses
    live = line("the live game")
    assert " finished in " in live and "NOT" not in live
    assert "acknowledged (all); errors seen: none" in live
    assert numbers(line("others meanwhile"))[0] > 0
    assert " 5 s later " in line("server  before") and " 5 s later " in line("workers before")


def test_server_load_measures_without_and_with_the_metrics() -> None:
    printed = run_benchmark(
        "server_load.py",
        *("--game", "luz", "--tables", "2", "--metrics"),
        *("--seconds", "0.5", "--warmup", "0.2", "--think", "0.02", "--no-spread"),
    )
    *rows, cost = printed.strip().splitlines()[-5:]
    assert [row.split()[0] for row in rows] == ["off", "on", "on", "off"]
    assert all(row.split()[-1] == "all" for row in rows)
    assert cost.startswith("metrics on/off: moves/s ×") and "server µs/move ×" in cost


def test_metrics_cost_runs_and_prints_its_figures() -> None:
    printed = run_benchmark("metrics_cost.py", "--moves", "2000", "--scrapes", "5")
    move, scrape, cost = printed.strip().splitlines()
    assert move.startswith("a move's metrics:") and float(move.split()[3]) > 0
    assert scrape.startswith("a scrape (250 tables):") and float(scrape.split()[4]) > 0
    assert cost.startswith("cost at capacity:")


def test_exploitability_quick_run_prints_its_table() -> None:
    """The smallest variant: CFR+'s NashConv under the uniform policy's, every bot's row."""
    pytest.importorskip("pyspiel", reason="OpenSpiel (the open_spiel package) is not installed")
    printed = run_benchmark("exploitability.py", "--quick")
    lines = printed.strip().splitlines()
    header = lines.index("benchmarks/exploitability.py --quick")
    assert lines[header + 1].split()[:3] == ["variant", "policy", "NashConv"]
    rows = {line.split()[1]: line.split() for line in lines[header + 2 :]}
    assert set(rows) == {"random", "easy", "medium", "hard", "CFR+"}
    nash_conv = {label: float(row[3] if label == "CFR+" else row[2]) for label, row in rows.items()}
    assert all(value >= -1e-9 for value in nash_conv.values())
    assert nash_conv["CFR+"] < nash_conv["random"]
    assert "CFR+ NashConv by iteration (last values): 2: " in printed


def test_server_load_interleaves_the_games_and_the_boardgame_io_peer() -> None:
    """The games take turns in short windows, each ratio to Wizard's the median of the rounds;
    where Node.js runs, ``--peer`` installs boardgame.io with npm and plays its matches in the
    same windows (every game's ratio to it), and ``--half-load`` adds each game's p99 at half
    its capacity. One run for both: each is a load run that takes the machine's cores."""
    peer = shutil.which("node") is not None and shutil.which("npm") is not None
    arguments = ["--game", "fzzzt", "wizard", "--tables", "4", "--interleave", "2"]
    arguments += ["--window", "1", "--warmup", "0.5", *(["--peer", "--half-load"] if peer else [])]
    command = [sys.executable, str(BENCHMARKS / "server_load.py"), *arguments]
    run = subprocess.run(command, capture_output=True, text=True, timeout=600, check=False)
    installed = (BENCHMARKS / "bgio_peer" / "node_modules" / "boardgame.io").is_dir()
    if peer and run.returncode != 0 and "npm install" in run.stderr and not installed:
        pytest.skip(f"boardgame.io could not be installed from the npm registry: {run.stderr}")
    assert run.returncode == 0, run.stderr
    lines = run.stdout.strip().splitlines()
    assert lines[0] == "command: benchmarks/server_load.py " + " ".join(arguments)
    assert "2 rounds of a 1 s window for each game in turn (wizard, fzzzt)" in run.stdout
    spread = next(line for line in lines if line.startswith("the tables are spread over"))
    lengths = dict(re.findall(r"(wizard|fzzzt) (\d+)", spread))
    assert 500 < int(lengths["wizard"]) < 600 and 100 < int(lengths["fzzzt"]) < 250, spread
    assert ("the peer's, below a whole match's (416)" in spread) == peer
    for game in ("wizard", "fzzzt"):  # which engine each server says it runs
        assert any(line.startswith(f"{game} server (") and "engine" in line for line in lines)
    start = next(index for index, line in enumerate(lines) if line.startswith("game "))
    header, *rows = lines[start : start + (4 if peer else 3)]
    assert header.split()[:2] == ["game", "engine"] and "median" in header and "/wizard" in header
    columns = [row.split() for row in rows]
    assert [row[:2] for row in columns] == [
        ["wizard", "serve"],
        ["fzzzt", "serve"],
        *([["boardgame.io", "node"]] if peer else []),
    ]
    rates = [[float(moves) for moves in row[2:4]] for row in columns]
    for row, windows in zip(columns, rates, strict=True):
        median, p50, p99, cost, ratio, spread = row[4:10]
        assert all(moves > 0 for moves in windows)
        assert min(windows) <= float(median) <= max(windows)
        assert float(p50) <= float(p99) and float(cost) > 0
        low, high = re.fullmatch(r"\[(\S+)–(\S+)\]", spread).groups()  # type: ignore[union-attr]
        assert float(low) <= float(ratio) <= float(high)
    assert columns[0][8:10] == ["1.00", "[1.00–1.00]"]  # Wizard against itself
    ended = next(line for line in lines if line.startswith("games ended in the measured windows"))
    assert re.search(r": wizard serve: \d+, fzzzt serve: \d+$", ended), ended
    if not peer:
        assert [row[-1] for row in columns] == ["all", "all"]
        return
    assert any(
        line.startswith("the peer, in the same windows: boardgame.io 0.50.2") for line in lines
    )
    assert "/boardgame.io" in header and "half: think ms" in header
    for side, row in zip(rates, columns, strict=True):  # the median of the rounds' ratios
        ratio = statistics.median(
            ours / theirs for ours, theirs in zip(side, rates[2], strict=True)
        )
        assert float(row[10]) == pytest.approx(ratio, rel=0.05, abs=0.01)
    assert columns[2][10:12] == ["1.00", "[1.00–1.00]"]  # the peer against itself
    for row in columns[:2]:  # each game at half its capacity: a thinking time, moves, a p99
        think, moves, p99, worst, persisted = row[-5:]
        assert float(think) > 0 and float(moves) > 0 and 0 < float(p99) <= float(worst)
        assert persisted == "all"
    assert columns[2][-5:] == ["–", "–", "–", "–", "memory"]  # in memory: nothing to check
    title = "at half capacity, round by round: p99 ms (games that ended in the round)"
    by_round = lines[lines.index(title) + 1 :]
    assert [line.split()[:2] for line in by_round] == [["wizard", "serve"], ["fzzzt", "serve"]]
    for line, row in zip(by_round, columns, strict=False):  # the worst round is the worst p99
        rounds = re.findall(r"(\S+) \((\d+)\)", line)
        assert len(rounds) == 2
        assert max(float(p99) for p99, _ in rounds) == pytest.approx(float(row[-2]), abs=0.06)


def test_days_memory_runs_asleep_and_awake_and_plays_at_a_woken_table() -> None:
    printed = run_benchmark("days_memory.py", "--tables", "40", "--awake", "20", "--settle", "0.3")
    rows = [line.split() for line in printed.splitlines()[1:5]]
    assert [(row[0], row[1]) for row in rows] == [
        ("10", "asleep"),
        ("40", "asleep"),
        ("10", "awake"),
        ("20", "awake"),
    ]
    ratio = re.search(r"40 tables asleep / 10 asleep, memory: ([0-9.]+)", printed)
    assert ratio is not None and float(ratio.group(1)) > 0
    assert "a table awake costs" in printed
