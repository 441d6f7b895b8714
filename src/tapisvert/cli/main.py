"""``tapisvert``: play a game against bots, simulate bot matches, replay and review records,
check a game; the platform's commands are in ``serving``, ``admin``, ``backups`` and
``exports``."""

from __future__ import annotations

import json
import os
import secrets
import sys
from pathlib import Path
from typing import TYPE_CHECKING, Annotated, Any, Literal

import typer
from rich.console import Console
from rich.padding import Padding
from rich.progress import Progress
from rich.table import Table
from rich.text import Text

from tapisvert.arena import run_arena, save_plots
from tapisvert.bots import Bot, make_bot
from tapisvert.bots.match import game_seeds, play_match, seat_rng
from tapisvert.cli.admin import admin
from tapisvert.cli.backups import backups
from tapisvert.cli.exports import exports
from tapisvert.cli.options import errors, fail, help_text
from tapisvert.cli.own_bots import own_bots
from tapisvert.cli.serving import serving
from tapisvert.cli.views import news
from tapisvert.compiled import engine_in_use, engine_words
from tapisvert.core.display import render_state
from tapisvert.core.errors import IllegalActionError, OptionError, RecordError, TapisvertError
from tapisvert.core.game import CHANCE, Game, State
from tapisvert.core.notation import ascii_number
from tapisvert.core.records import (
    actor_label,
    read_record,
    record_of,
    record_path,
    records_folder,
    save_record,
)
from tapisvert.core.registry import game_names, load_game
from tapisvert.core.stats import Estimate, mean_interval
from tapisvert.i18n import LANGUAGES, default_language, translate
from tapisvert.review import review_game

if TYPE_CHECKING:
    from tapisvert.testing import CheckResult


app = typer.Typer(
    help=help_text("app"),
    no_args_is_help=True,
    pretty_exceptions_enable=False,
)
app.add_typer(admin, name="admin")
app.add_typer(backups)
app.add_typer(exports)
app.add_typer(serving)
app.add_typer(own_bots)
console = Console(highlight=False)

LanguageOption = Annotated[
    str, typer.Option("--lang", help=help_text("lang", languages=", ".join(LANGUAGES)))
]
OptionsOption = Annotated[
    list[str] | None,
    typer.Option("--option", "-o", help=help_text("option")),
]
SaveRecordsOption = Annotated[
    Path | None, typer.Option(metavar="DIR", help=help_text("save_records"))
]


def parse_options(pairs: list[str] | None) -> dict[str, str]:
    """``--option NAME=VALUE`` pairs as the game's options; a pair without ``=`` is refused."""
    options: dict[str, str] = {}
    for pair in pairs or []:
        name, equals, value = pair.partition("=")
        if not equals or not name.strip():
            raise OptionError("error.option_form", text=pair)
        options[name.strip()] = value.strip()
    return options


def make_game(
    name: str, players: int | None, options: list[str] | None, language: str
) -> Game[Any]:
    try:
        return load_game(name, players, **parse_options(options))
    except TapisvertError as error:
        raise fail(error, language) from None


def make_lineup(
    game_name: str, bots: str, options: list[str] | None, language: str
) -> tuple[Game[Any], list[str], list[Bot]]:
    """The game for one seat per named bot, the names, and the bots."""
    names = [name.strip() for name in bots.split(",") if name.strip()]
    game = make_game(game_name, len(names), options, language)
    try:
        return game, names, [make_bot(name, game) for name in names]
    except TapisvertError as error:
        raise fail(error, language) from None


@app.command("games", help=help_text("games"))
def list_games() -> None:
    for name in game_names():
        console.print(name)


@app.command(help=help_text("play"))
def play(
    game_name: Annotated[str, typer.Argument(metavar="GAME", help=help_text("play_game"))],
    players: Annotated[int, typer.Option(help=help_text("players"))] = 4,
    seat: Annotated[int, typer.Option(help=help_text("seat"))] = 1,
    bots: Annotated[str, typer.Option(help=help_text("play_bots"))] = "heuristic",
    seed: Annotated[int | None, typer.Option(help=help_text("play_seed"))] = None,
    save: Annotated[Path | None, typer.Option(help=help_text("save"))] = None,
    option: OptionsOption = None,
    language: LanguageOption = "",
) -> None:
    language = language or default_language()
    game = make_game(game_name, players, option, language)
    human = seat - 1
    if not 0 <= human < game.players:
        raise fail(OptionError("cli.bad_seat", players=game.players), language)
    names = [name.strip() for name in bots.split(",")]
    others = [seat_index for seat_index in range(game.players) if seat_index != human]
    if len(names) == 1:
        names = names * len(others)
    if len(names) != len(others):
        raise fail(OptionError("cli.bot_count", given=len(names), players=len(others)), language)
    try:
        seated = {other: make_bot(name, game) for other, name in zip(others, names, strict=True)}
    except TapisvertError as error:
        raise fail(error, language) from None
    seed = seed if seed is not None else secrets.randbits(48)
    state = game.new_initial_state(seed)
    rngs = {other: seat_rng(seed, other) for other in others}
    console.print(translate("cli.quit", language))
    shown = None
    while not state.is_terminal():
        player = state.current_player()
        if player == CHANCE:
            state.resolve_chance()
            continue
        if player != human:
            state.apply_action(
                seated[player].choose(
                    state.observation(player), state.legal_actions(), rngs[player]
                )
            )
            continue
        view = state.observation(human)
        for item in news(game.name, shown, view, language):
            console.print(item)
        shown = view
        console.rule(translate("cli.your_turn", language))
        console.print(render_state(state, human, language))
        legal = state.legal_actions()
        moves = [state.action_to_string(action) for action in legal]
        console.print(
            translate("cli.legal_moves", language)
            + ": "
            + "  ".join(f"[bold]{number}[/]) {move}" for number, move in enumerate(moves, 1))
        )
        while True:
            try:
                prompt = translate("cli.choose", language, example=moves[0]) + " > "
                entry = console.input(prompt).strip()
            except EOFError:
                raise typer.Exit(code=0) from None
            if entry.lower() in {"quit", "exit", "q"}:
                raise typer.Exit(code=0)
            try:
                chosen = ascii_number(entry)
                if chosen is not None and 1 <= chosen <= len(legal):
                    action = legal[chosen - 1]
                else:
                    action = state.string_to_action(entry)
                state.apply_action(action)
                break
            except IllegalActionError as error:
                console.print(
                    "[red]"
                    + translate("cli.bad_entry", language, reason=error.render(language))
                    + "[/]"
                )
    final = state.observation(human)
    for item in news(game.name, shown, final, language):
        console.print(item)
    console.print(render_state(state, human, language))
    if save is not None:
        seats = [
            translate("cli.you", language) if index == human else names[others.index(index)]
            for index in range(game.players)
        ]
        record = record_of(state, seats)
        save_record(record, save)
        console.print(translate("cli.saved", language, path=save))


@app.command(help=help_text("simulate"))
def simulate(
    game_name: Annotated[str, typer.Argument(metavar="GAME", help=help_text("simulate_game"))],
    games_count: Annotated[
        int, typer.Option("--games", min=1, help=help_text("simulate_games"))
    ] = 100,
    bots: Annotated[
        str, typer.Option(help=help_text("simulate_bots"))
    ] = "heuristic,random,random,random",
    seed: Annotated[int, typer.Option(help=help_text("simulate_seed"))] = 0,
    as_json: Annotated[bool, typer.Option("--json", help=help_text("json"))] = False,
    save_records: SaveRecordsOption = None,
    option: OptionsOption = None,
    language: LanguageOption = "",
) -> None:
    language = language or default_language()
    game, names, lineup = make_lineup(game_name, bots, option, language)
    try:
        folder = None if save_records is None else records_folder(save_records)
    except TapisvertError as error:
        raise fail(error, language) from None
    scores: list[list[float]] = [[] for _ in names]
    wins = [0.0] * len(names)
    with Progress(console=errors, disable=as_json, transient=True) as progress:
        task = progress.add_task(
            translate("cli.simulating", language, games=games_count, game=game.name),
            total=games_count,
        )
        for number, game_seed in enumerate(game_seeds(seed, games_count), start=1):
            final = play_match(game, lineup, game_seed)
            if folder is not None:
                path = record_path(folder, game.name, (number, games_count))
                save_record(record_of(final, names), path)
            for index, score in enumerate(final.returns()):
                scores[index].append(score)
            winners = final.winners()
            for winner in winners:
                wins[winner] += 1 / len(winners)
            progress.advance(task)
    estimates = [mean_interval(seat_scores) for seat_scores in scores]
    if as_json:
        seats = [
            {
                "seat": index + 1,
                "bot": name,
                "mean": estimate.mean,
                "ci95": [estimate.low, estimate.high],
                "win_rate": wins[index] / games_count,
            }
            for index, (name, estimate) in enumerate(zip(names, estimates, strict=True))
        ]
        payload = {
            "game": game.name,
            "options": dict(game.options),
            "games": games_count,
            "seed": seed,
            "seats": seats,
        }
        sys.stdout.write(json.dumps(payload, indent=2) + "\n")
        return
    table = Table(
        title=f"{game.name} — {games_count} {translate('cli.games', language)}, seed {seed}"
    )
    for key in ("cli.column_seat", "cli.column_bot", "cli.mean", "cli.ci", "cli.win_rate"):
        table.add_column(translate(key, language), justify="right")
    for index, (name, estimate) in enumerate(zip(names, estimates, strict=True)):
        table.add_row(
            f"P{index + 1}",
            name,
            f"{estimate.mean:.1f}",
            f"[{estimate.low:.1f}, {estimate.high:.1f}]",
            f"{100 * wins[index] / games_count:.1f}",
        )
    console.print(table)
    if save_records is not None:
        console.print(translate("cli.records_saved", language, path=save_records))


@app.command(help=help_text("arena"))
def arena(
    game_name: Annotated[str, typer.Argument(metavar="GAME", help=help_text("arena_game"))],
    bots: Annotated[str, typer.Option(help=help_text("arena_bots"))] = "hard,easy,easy,easy",
    deals: Annotated[int, typer.Option("--games", min=1, help=help_text("arena_games"))] = 50,
    seed: Annotated[int, typer.Option(help=help_text("arena_seed"))] = 0,
    workers: Annotated[int, typer.Option(min=1, help=help_text("workers"))] = max(
        1, (os.cpu_count() or 1)
    ),
    plots: Annotated[Path | None, typer.Option(help=help_text("plots"))] = Path("arena-plots"),
    as_json: Annotated[bool, typer.Option("--json", help=help_text("json"))] = False,
    ray: Annotated[str | None, typer.Option(metavar="ADDRESS", help=help_text("ray"))] = None,
    save_records: SaveRecordsOption = None,
    option: OptionsOption = None,
    language: LanguageOption = "",
) -> None:
    language = language or default_language()
    game, names, _ = make_lineup(game_name, bots, option, language)
    total = deals * len(names)
    with Progress(console=errors, disable=as_json, transient=True) as progress:
        task = progress.add_task(
            translate("cli.simulating", language, games=total, game=game.name), total=total
        )
        try:
            report = run_arena(
                game.name,
                names,
                deals,
                seed=seed,
                options=parse_options(option),
                workers=workers,
                advance=lambda: progress.advance(task),
                ray_address=ray,
                records=save_records,
            )
        except TapisvertError as error:
            raise fail(error, language) from None
    saved = save_plots(report, plots) if plots is not None else []
    if as_json:
        payload = report.to_dict() | {
            "plots": [str(path) for path in saved],
            "engine": engine_in_use(),
        }
        sys.stdout.write(json.dumps(payload, indent=2) + "\n")
        return
    engine, words = engine_words()
    errors.print(translate(engine, language, **words), markup=False, highlight=False)
    played = f"{deals} × {len(names)} {translate('cli.games', language)}"
    table = Table(
        title=f"{game.name} — {played}, seed {seed}",
        caption=translate("cli.interval_note", language, deals=deals),
    )
    # One column per entry and a row per figure: a column's header is only its bot's name,
    # which folds rather than being cut, so the table fits a narrow terminal.
    table.add_column("", overflow="fold")
    for entry in report.entries:
        table.add_column(f"{entry.entry}: {entry.bot}", justify="right", overflow="fold")
    entries = report.entries
    rows = {
        "cli.margin_game": [estimate_cell(entry.margin_per_game) for entry in entries],
        "cli.margin_round": [
            "—" if entry.margin_per_segment is None else estimate_cell(entry.margin_per_segment)
            for entry in entries
        ],
        "cli.win_rate": [f"{100 * entry.win_rate:.1f}" for entry in entries],
        "cli.bids_made": [
            "—" if entry.contracts_made is None else f"{100 * entry.contracts_made:.1f}"
            for entry in entries
        ],
        "cli.rating": [f"{entry.rating_mu:.1f} ± {entry.rating_sigma:.1f}" for entry in entries],
        "cli.think": [
            f"{entry.mean_decision_seconds * 1000:.0f} / {entry.max_decision_seconds * 1000:.0f}"
            for entry in entries
        ],
    }
    for key, cells in rows.items():
        table.add_row(translate(key, language), *cells)
    console.print(table)
    for path in saved:
        console.print(translate("cli.plot_saved", language, path=path))
    if save_records is not None:
        console.print(translate("cli.records_saved", language, path=save_records))


def estimate_cell(estimate: Estimate) -> str:
    """A mean and its interval; a mean alone from one sample (one deal gives no interval)."""
    if estimate.count < 2:
        return f"{estimate.mean:+.1f}"
    return f"{estimate.mean:+.1f} [{estimate.low:+.1f}, {estimate.high:+.1f}]"


@app.command(help=help_text("replay"))
def replay(
    path: Annotated[Path, typer.Argument(help=help_text("replay_path"))],
    step: Annotated[int | None, typer.Option(min=0, help=help_text("replay_step"))] = None,
    seat: Annotated[int | None, typer.Option(min=1, help=help_text("replay_seat"))] = None,
    language: LanguageOption = "",
) -> None:
    language = language or default_language()
    try:
        record = read_record(path, check=False)
        if seat is not None and seat > record.players:
            raise OptionError("cli.bad_seat", players=record.players)
        if step is not None and step > len(record.actions):
            raise RecordError("record.no_step", line=None, step=step, moves=len(record.actions))
        console.print(f"[bold]{record.game}[/] — {', '.join(record.seats)} — {record.date}")
        previous = None
        final = record.state_at(0)
        for played in record.steps() if step != 0 else ():
            actor = (
                translate("record.chance", language)
                if played.actor == CHANCE
                else actor_label(played.actor)
            )
            console.print(
                translate("cli.step", language, number=played.number, actor=actor, move=played.text)
            )
            scores = played.state.returns()
            if previous is not None and scores != previous:
                console.print(
                    f"[bold]{translate('cli.scores', language)}:[/] "
                    + "  ".join(f"P{index + 1} {score:g}" for index, score in enumerate(scores))
                )
            previous = scores
            final = played.state
            if played.number == step:
                break  # the next step would change the state in place
        if step is not None or seat is not None:
            show_state(final, seat, len(record.actions) if step is None else step, language)
        if step is not None:
            return  # the record is checked up to the step only
    except TapisvertError as error:
        raise fail(error, language) from None
    result = final.returns() if final.is_terminal() else "*"
    console.print(translate("cli.replay_ok", language, moves=len(record.actions), result=result))


def show_state(state: State, seat: int | None, step: int, language: str) -> None:
    """The table after ``step`` as each seat (or ``seat`` alone, from 1) sees it."""
    for index in range(state.game.players) if seat is None else [seat - 1]:
        console.rule(translate("cli.state_at", language, step=step, seat=actor_label(index)))
        console.print(render_state(state, index, language))


REVIEW_COLUMNS: tuple[tuple[str, Literal["left", "right"]], ...] = (
    ("review_step", "right"),
    ("review_played", "left"),
    ("review_expected", "right"),
    ("review_best", "left"),
    ("review_expected", "right"),
    ("review_cost", "right"),
)


@app.command(help=help_text("review"))
def review(
    path: Annotated[Path, typer.Argument(help=help_text("review_path"))],
    seat: Annotated[int, typer.Option(min=1, help=help_text("review_seat"))],
    samples: Annotated[int, typer.Option(min=1, help=help_text("review_samples"))] = 40,
    seed: Annotated[int, typer.Option(help=help_text("review_seed"))] = 0,
    top: Annotated[int, typer.Option(min=0, help=help_text("review_top"))] = 5,
    language: LanguageOption = "",
) -> None:
    language = language or default_language()
    try:
        record = read_record(path, check=False)
        if seat > record.players:
            raise OptionError("cli.bad_seat", players=record.players)
        with Progress(console=errors, transient=True) as progress:
            task = progress.add_task(translate("cli.reviewing", language, decisions="…", seat=seat))

            def advance(done: int, total: int) -> None:
                label = translate("cli.reviewing", language, decisions=total, seat=seat)
                progress.update(task, completed=done, total=total, description=label)

            decisions = review_game(record, seat - 1, samples, seed, advance)
    except TapisvertError as error:
        raise fail(error, language) from None
    table = Table(title=translate("cli.review_title", language, seat=seat, samples=samples))
    for key, justify in REVIEW_COLUMNS:
        table.add_column(translate(f"cli.{key}", language), justify=justify)
    for decision in decisions:
        table.add_row(
            str(decision.step),
            decision.played.text,
            f"{decision.played.expected:+.1f}",
            decision.best.text,
            f"{decision.best.expected:+.1f}",
            f"{decision.cost:.1f}" if decision.cost else "",
        )
    console.print(table)
    costliest = sorted(decisions, key=lambda decision: -decision.cost)[:top]
    for decision in costliest:
        if decision.cost > 0:
            console.print(
                translate(
                    "cli.review_costly",
                    language,
                    move=decision.played.text,
                    cost=f"{decision.cost:.1f}",
                    best=decision.best.text,
                )
            )
    console.print(
        translate(
            "cli.review_total",
            language,
            cost=f"{sum(decision.cost for decision in decisions):.1f}",
            decisions=len(decisions),
            perfect=sum(1 for decision in decisions if not decision.cost),
        )
    )


CHECK_MARKS = {"ok": "[green]✓[/]", "failed": "[bold red]✗[/]", "skipped": "[dim]–[/]"}


@app.command(help=help_text("check"))
def check(
    game_name: Annotated[
        str | None, typer.Argument(metavar="GAME", help=help_text("check_game"))
    ] = None,
    every_game: Annotated[bool, typer.Option("--all", help=help_text("check_all"))] = False,
    players: Annotated[int | None, typer.Option(help=help_text("check_players"))] = None,
    games_count: Annotated[int, typer.Option("--games", min=1, help=help_text("check_games"))] = 3,
    seed: Annotated[int, typer.Option(help=help_text("check_seed"))] = 0,
    option: OptionsOption = None,
    language: LanguageOption = "",
) -> None:
    from tapisvert.testing import run_checks  # imports Markdown's parser: only here

    language = language or default_language()
    if every_game == (game_name is not None) or (every_game and (players or option)):
        raise fail(OptionError("cli.check.game_or_all"), language)
    chosen = [make_game(game_name, players, option, language)] if game_name else []
    chosen = chosen or [make_game(name, None, None, language) for name in game_names()]
    failed = 0
    for game in chosen:
        console.print(
            "[bold]"
            + translate(
                "cli.check.title",
                language,
                game=game.name,
                players=game.players,
                games=games_count,
                seed=seed,
            )
            + "[/]"
        )
        for result in run_checks(game, games=games_count, seed=seed):
            print_check(result, language)
            failed += result.status == "failed"
    verdict = "cli.check.failed_total" if failed else "cli.check.passed"
    console.print(translate(verdict, language, failed=failed))
    if failed:
        raise typer.Exit(code=1)


def print_check(result: CheckResult, language: str) -> None:
    """One row per check, what it verifies in words; below, why it failed or was skipped."""
    row = Table.grid(padding=(0, 1))
    row.add_column(width=3, justify="right")
    row.add_column(width=14)
    row.add_column(width=10)
    row.add_column()
    row.add_row(
        CHECK_MARKS[result.status],
        result.check.name,
        translate(f"cli.check.{result.status}", language),
        translate(result.check.description_key, language),
    )
    console.print(row)
    detail = result.detail if result.reason is None else result.reason.render(language)
    if detail:
        style = "red" if result.status == "failed" else "dim"
        console.print(Padding(Text(detail, style), (0, 0, 0, 6)))
