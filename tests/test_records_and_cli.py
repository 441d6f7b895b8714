"""Records in both forms, the replay command's errors, and the play and simulate commands."""

from __future__ import annotations

import json
import os
import random
import subprocess
import sys
from pathlib import Path

import pytest
from typer.testing import CliRunner

from tapisvert import RecordError, load_game
from tapisvert.cli.main import app
from tapisvert.core.records import load_record, parse_record, record_of

from conftest import random_playthrough

runner = CliRunner()


@pytest.fixture
def finished_record() -> str:
    game = load_game("wizard", players=3, rounds="1,2")
    final = random_playthrough(game.new_initial_state(), random.Random(3))[-1]
    return record_of(final, ["ana", "bea", "carl"], date="2026-11-29").to_text()


def test_text_and_json_forms_round_trip(finished_record: str) -> None:
    record = load_record(finished_record)
    assert record.seats == ["ana", "bea", "carl"]
    assert record.result is not None
    again = load_record(record.to_json())
    assert again.actions == record.actions
    assert again.replay().returns() == record.result
    assert finished_record.startswith('[Game "wizard"]')
    assert "1. chance: dealer P" in finished_record


def test_an_illegal_move_names_its_line(finished_record: str) -> None:
    lines = finished_record.splitlines()
    index = next(n for n, line in enumerate(lines) if ": play " in line)
    lines[index] = lines[index].split(": play ")[0] + ": play Q4"
    with pytest.raises(RecordError) as caught:
        load_record("\n".join(lines))
    assert caught.value.line == index + 1
    assert "Q4" in str(caught.value)


def test_a_wrong_actor_and_a_broken_header_are_named(finished_record: str) -> None:
    lines = finished_record.splitlines()
    index = next(n for n, line in enumerate(lines) if ": bid " in line)
    actor = lines[index].split(":")[0].split()[-1]
    lines[index] = lines[index].replace(f" {actor}:", " P9:")
    with pytest.raises(RecordError, match=f"line {index + 1}: it is {actor} to act, not P9"):
        load_record("\n".join(lines))
    with pytest.raises(RecordError, match="line 1"):
        load_record("[Game wizard]\n" + finished_record)


def test_json_errors_name_the_line(finished_record: str) -> None:
    text = parse_record(finished_record).to_json()
    broken = text.replace('"deal ', '"deal Z', 1)
    line = next(n for n, row in enumerate(broken.splitlines(), 1) if '"deal Z' in row)
    with pytest.raises(RecordError, match=f"line {line}:"):
        load_record(broken)
    with pytest.raises(RecordError, match="line 2"):
        load_record('{"game": "wizard",\n "players": }')


def test_a_tampered_result_is_refused(finished_record: str) -> None:
    record = parse_record(finished_record)
    record.result = [1.0, 2.0, 3.0]
    with pytest.raises(RecordError, match="differs"):
        record.replay()


def test_replay_command_prints_steps_and_scores(tmp_path: Path, finished_record: str) -> None:
    path = tmp_path / "game.txt"
    path.write_text(finished_record)
    result = runner.invoke(app, ["replay", str(path), "--lang", "en"])
    assert result.exit_code == 0, result.output
    assert "Scores:" in result.output
    assert "The record is valid" in result.output


@pytest.mark.parametrize("damage", ["truncate", "garbage", "missing"])
def test_replay_command_never_shows_a_traceback(
    tmp_path: Path, finished_record: str, damage: str
) -> None:
    path = tmp_path / "game.txt"
    if damage == "truncate":
        path.write_text(finished_record[: len(finished_record) // 2] + "\n17 play\n")
    elif damage == "garbage":
        path.write_bytes(b"\x00\xff\xfe not a record")
    result = runner.invoke(app, ["replay", str(path), "--lang", "fr"])
    assert result.exit_code == 2
    assert "Traceback" not in result.output
    assert result.exception is None or isinstance(result.exception, SystemExit)


def test_play_against_bots_with_typed_and_numbered_moves(tmp_path: Path) -> None:
    entries = "nonsense\nplay Q4\n" + "1\n" * 40
    save = tmp_path / "played.json"
    result = runner.invoke(
        app,
        [
            "play",
            "wizard",
            "--players",
            "3",
            "--seed",
            "9",
            "--option",
            "rounds=1,2",
            "--save",
            str(save),
            "--lang",
            "en",
        ],
        input=entries,
    )
    assert result.exit_code == 0, result.output
    assert "Not accepted: 'nonsense' is not a move" in result.output
    assert "Not accepted: 'play Q4' is not possible now" in result.output
    assert "Game over" in result.output
    record = load_record(save.read_text())
    assert record.result is not None


def test_play_shows_only_the_seats_own_hand() -> None:
    game = load_game("wizard", players=3, rounds="3", first_dealer="P3")
    state = game.new_initial_state(seed=4)
    state.resolve_chance()
    result = runner.invoke(
        app,
        [
            "play",
            "wizard",
            "--players",
            "3",
            "--seed",
            "4",
            "--option",
            "rounds=3",
            "--option",
            "first_dealer=P3",
            "--lang",
            "en",
        ],
        input="quit\n",
    )
    from tapisvert.games.wizard import card_to_string

    mine = " ".join(card_to_string(card) for card in state.hand(0))
    assert f"Your hand: {mine}" in result.output
    for seat in (1, 2):
        for card in state.hand(seat):
            word = card_to_string(card)
            if len(word) > 1 and word not in mine.split():
                assert f" {word} " not in result.output.replace("\n", " ")


def test_simulate_is_reproducible_and_scripts_get_json() -> None:
    arguments = [
        "simulate",
        "wizard",
        "--games",
        "6",
        "--bots",
        "heuristic,random,random",
        "--seed",
        "42",
        "--json",
        "--option",
        "rounds=first5",
    ]
    first = runner.invoke(app, arguments)
    second = runner.invoke(app, arguments)
    assert first.exit_code == 0, first.output
    assert first.output == second.output
    payload = json.loads(first.output)
    assert payload["games"] == 6
    assert [seat["bot"] for seat in payload["seats"]] == ["heuristic", "random", "random"]
    low, high = payload["seats"][0]["ci95"]
    assert low <= payload["seats"][0]["mean"] <= high
    other = runner.invoke(app, [*arguments[:-4], "43", "--json", "--option", "rounds=first5"])
    assert other.output != first.output


def test_bad_command_input_is_explained() -> None:
    result = runner.invoke(app, ["simulate", "wizard", "--bots", "heuristic,nobody,random"])
    assert result.exit_code == 2
    assert "there is no bot nobody" in result.output
    result = runner.invoke(app, ["play", "wizard", "--players", "9", "--lang", "fr"])
    assert "se joue de 2 à 6 joueurs" in result.output  # 2 with a smaller deck


def test_play_luz_shows_possible_values_not_own_values() -> None:
    game = load_game("luz", players=3, first_player="P1")
    state = game.new_initial_state(seed=12)
    state.resolve_chance()
    result = runner.invoke(
        app,
        [
            "play",
            "luz",
            "--players",
            "3",
            "--seed",
            "12",
            "--option",
            "first_player=P1",
            "--lang",
            "en",
        ],
        input="bet 11\nbet 1+\n" + "1\n" * 12 + "quit\n",
    )
    assert result.exit_code == 0, result.output
    assert "Not accepted: a bet is a number of tricks from 0 to 10" in result.output
    first_screen = result.output.split("Type a move")[0]
    assert "0:" in first_screen and "[" in first_screen
    from tapisvert.games.luz import card_to_string

    tokens = set(first_screen.split())
    assert not {card_to_string(held) for held in state.hand(0)} & tokens
    assert {card_to_string(held) for held in state.hand(1)} <= tokens


def test_play_fzzzt_hides_the_other_bids() -> None:
    result = runner.invoke(
        app,
        ["play", "fzzzt", "--players", "3", "--seed", "3", "--lang", "en"],
        input="bid M7\n" + "1\n" * 30 + "quit\n",
    )
    assert result.exit_code == 0, result.output
    assert "Not accepted: 'M7' is not a card" in result.output
    assert "Your hand:" in result.output
    assert " wins " in result.output


def test_play_abluxxen_duel_against_a_bot() -> None:
    result = runner.invoke(
        app,
        [
            "play",
            "abluxxen",
            "--players",
            "2",
            "--seed",
            "8",
            "--option",
            "duel=true",
            "--lang",
            "fr",
        ],
        input="set 5+7\n" + "1\n" * 60 + "quit\n",
    )
    assert result.exit_code == 0, result.output
    assert "n'est pas une série" in result.output
    assert "Joueur fictif" in result.output
    assert "Votre main" in result.output


def test_play_an_abluxxen_series_shows_the_game_and_the_totals() -> None:
    result = runner.invoke(
        app,
        ["play", "abluxxen", "--players", "3", "--seed", "4", "-o", "series=true", "--lang", "en"],
        input="1\n" * 40 + "quit\n",
    )
    assert result.exit_code == 0, result.output
    assert "Game 1 of 3" in result.output
    assert "Total" in result.output


def test_help_speaks_the_language_of_the_environment() -> None:
    """``--help`` is printed before ``--lang`` is read: the language comes from the
    environment, so this runs the command in a process of its own."""
    command = [sys.executable, "-m", "tapisvert", "play", "--help"]
    for language, expected in (("fr", "Votre place, à partir de 1"), ("en", "Your seat, from 1")):
        shown = subprocess.run(
            command,
            capture_output=True,
            text=True,
            check=True,
            env={**os.environ, "TAPISVERT_LANG": language, "COLUMNS": "200"},
        ).stdout
        assert expected in shown, shown


def test_arena_command_reports_and_plots(tmp_path: Path) -> None:
    arguments = [
        "arena",
        "wizard",
        "--bots",
        "easy,random,random",
        "--games",
        "3",
        "--seed",
        "5",
        "--workers",
        "1",
        "--option",
        "rounds=first5",
        "--plots",
        str(tmp_path),
    ]
    result = runner.invoke(app, [*arguments, "--json"])
    assert result.exit_code == 0, result.output
    report = json.loads(result.output)
    assert [entry["games"] for entry in report["entries"]] == [9, 9, 9]
    assert report["entries"][0]["margin_per_game"]["mean"] > 0
    assert all(Path(path).exists() for path in report["plots"])
    table = runner.invoke(app, [*arguments, "--lang", "fr"])
    assert "Graphique enregistré" in table.output
