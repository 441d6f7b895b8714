"""Records in both forms, the replay command's errors, and the play and simulate commands."""

from __future__ import annotations

import io
import json
import os
import random
import re
import subprocess
import sys
from pathlib import Path

import pytest
from rich.console import Console, RenderableType
from typer.testing import CliRunner

from tapisvert import CHANCE, OptionError, RecordError, load_game
from tapisvert.arena import run_arena
from tapisvert.cli.main import app
from tapisvert.core.display import render_state
from tapisvert.core.game import State
from tapisvert.core.records import (
    load_record,
    parse_record,
    read_record,
    record_of,
    save_record,
)
from tapisvert.core.registry import game_names
from tapisvert.games.wizard.observation import WizardObservation
from tapisvert.i18n import translate

from conftest import random_playthrough

runner = CliRunner()
NUMBER_OF = re.compile(r"(\d+) (?:of|sur) (\d+)")
""""Round 3 of 5", "Donne 3 sur 4": a number out of a count, in either language."""


def finished_game(name: str, seed: int = 7, **options: object) -> State:
    """A whole game of ``name``, random legal moves at every seat."""
    state: State = load_game(name, None, **options).new_initial_state(seed)
    rng = random.Random(seed)
    while not state.is_terminal():
        if state.current_player() == CHANCE:
            state.resolve_chance()
        else:
            state.apply_action(rng.choice(state.legal_actions()))
    return state


def plain(shown: RenderableType) -> str:
    out = io.StringIO()
    Console(file=out, width=100, color_system=None).print(shown)
    return out.getvalue()


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
    bots = ["--bots", "random,random,random", "--games", "1"]
    result = runner.invoke(app, ["simulate", "wizard", *bots, "-o", "rounds", "--lang", "en"])
    assert result.exit_code == 2
    assert "an option is given as NAME=VALUE, such as rounds=10, not rounds" in result.output


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


def test_a_record_file_is_read_with_read_record_and_load_record_refuses_a_path(
    tmp_path: Path, finished_record: str
) -> None:
    path = tmp_path / "records" / "game.txt"
    save_record(parse_record(finished_record), str(path))
    assert read_record(str(path)).actions == read_record(path).actions
    assert read_record(path).result == load_record(finished_record).result
    with pytest.raises(RecordError) as refused:
        load_record(path)  # type: ignore[arg-type]
    assert "read_record(path)" in refused.value.render("en")
    assert "read_record(path)" in refused.value.render("fr")
    with pytest.raises(RecordError, match="cannot read"):
        read_record(tmp_path / "missing.txt")


def test_the_arena_takes_its_records_folder_as_text_and_refuses_a_bad_one_first(
    tmp_path: Path,
) -> None:
    lineup, options = ["easy", "random", "random"], {"rounds": "1"}
    folder = tmp_path / "records"
    run_arena("wizard", lineup, deals=1, options=options, records=str(folder))
    assert len([read_record(path) for path in folder.iterdir()]) == 3
    played: list[int] = []
    blocked = tmp_path / "a-file"
    blocked.write_text("not a folder")
    with pytest.raises(RecordError) as refused:
        run_arena(
            "wizard",
            lineup,
            deals=1,
            options=options,
            records=blocked,
            advance=lambda: played.append(1),
        )
    assert played == []
    assert "cannot write the records" in refused.value.render("en")
    assert "impossible d'écrire" in refused.value.render("fr")


@pytest.mark.parametrize("name", game_names())
def test_a_finished_game_is_shown_over_with_its_scores_and_winners(
    tmp_path: Path, name: str
) -> None:
    """At its last step a game says it is over, with no round or deal after the last."""
    final = finished_game(name)
    path = tmp_path / "game.txt"
    save_record(record_of(final), path)
    steps = len(final.history())
    scores = "  ".join(f"P{seat + 1} {score:g}" for seat, score in enumerate(final.returns()))
    winners = ", ".join(f"P{seat + 1}" for seat in final.winners())
    for language in ("en", "fr"):
        arguments = ["replay", str(path), "--step", str(steps), "--seat", "1", "--lang", language]
        result = runner.invoke(app, arguments)
        assert result.exit_code == 0, result.output
        shown = result.output.split(translate("cli.state_at", language, step=steps, seat="P1"))[1]
        assert translate("cli.game_over", language) in shown
        assert f"{translate('cli.scores', language)}: {scores}" in shown
        assert translate("cli.winners", language, names=winners) in shown
        for number, count in NUMBER_OF.findall(shown):
            assert int(number) <= int(count), shown


def test_a_finished_wizard_game_shows_the_last_rounds_tricks() -> None:
    final = finished_game("wizard", rounds="1,2")
    observation = final.observation(None)
    assert isinstance(observation, WizardObservation)
    last = observation.past_rounds[-1]
    rows = [line.split() for line in plain(render_state(final, None, "en")).splitlines()]
    tricks = [int(row[3]) for row in rows if row and re.fullmatch(r"P\d", row[0])]
    assert tricks == list(last.tricks)
    assert sum(tricks) == 2


def test_pettingzoo_renders_a_finished_game_as_over() -> None:
    pytest.importorskip("pettingzoo")
    from tapisvert.envs.pettingzoo import env

    table = env("wizard", 3, render_mode="ansi", rounds="first5")
    table.reset(seed=2)
    rng = random.Random(2)
    for _agent in table.agent_iter():
        observation, _, terminated, truncated, _ = table.last()
        if terminated or truncated:
            table.step(None)
            continue
        mask = observation["action_mask"]
        table.step(rng.choice([index for index, allowed in enumerate(mask) if allowed]))
    shown = table.render()
    assert shown is not None and "Game over" in shown and "Winner(s): P" in shown
    assert all(int(number) <= int(count) for number, count in NUMBER_OF.findall(shown))


def test_replay_with_a_seat_and_no_step_shows_that_seat_at_the_end(
    tmp_path: Path, finished_record: str
) -> None:
    path = tmp_path / "game.txt"
    path.write_text(finished_record)
    steps = len(parse_record(finished_record).actions)
    result = runner.invoke(app, ["replay", str(path), "--seat", "2", "--lang", "en"])
    assert result.exit_code == 0, result.output
    assert f"The table after step {steps}, as P2 sees it" in result.output
    assert "as P1 sees it" not in result.output
    assert "Game over" in result.output
    assert result.output.rstrip().splitlines()[-1].startswith("The record is valid")


def test_two_play_wizard_is_told_which_options_make_the_deck_small_enough() -> None:
    for language in ("en", "fr"):
        result = runner.invoke(
            app, ["simulate", "wizard", "--bots", "hard,easy", "--lang", language]
        )
        assert result.exit_code == 2
        assert "suit_values" in result.output and "specials" in result.output
    with pytest.raises(OptionError) as refused:
        load_game("wizard", 2)
    suggested = dict(re.findall(r"(suit_values|specials)=(\d+)", refused.value.render("en")))
    assert set(suggested) == {"suit_values", "specials"}
    assert load_game("wizard", 2, **suggested).players == 2
