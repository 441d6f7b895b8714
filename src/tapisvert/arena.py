"""Tournaments between bots: duplicate deals with seat rotation, in parallel processes.

Every deal (one seed) is played once per rotation of the line-up, so each entry sits in
every seat on the same cards, which cancels most of the luck of the deal. The rotations of
a deal share its cards, so they are not independent samples: every interval is a 95%
Student t-interval over the deals, computed on each deal's mean over its rotations. The
games run in
this process, in a pool of processes, or as Ray tasks on a cluster; each game depends on its
job alone, so all three give the same report for the same seed. The report
gives, per entry of the line-up, the margin over the other seats per game and per scoring
segment (round, deal) with those intervals, win rates, bid accuracy where the game has bids,
and OpenSkill ratings; it can draw the score distributions and the margins as PNG plots.
"""

from __future__ import annotations

import multiprocessing
import os
import statistics
from collections.abc import Callable, Iterator, Sequence
from dataclasses import asdict, dataclass, field
from itertools import pairwise
from pathlib import Path
from typing import Any

from tapisvert.bots.base import make_bot
from tapisvert.bots.match import game_seeds, play_match
from tapisvert.core.extras import needs
from tapisvert.core.game import State
from tapisvert.core.records import Record, record_of, record_path, records_folder, save_record
from tapisvert.core.registry import load_game
from tapisvert.core.stats import Estimate, grouped_mean_interval


@dataclass(frozen=True)
class Job:
    game: str
    players: int
    options: dict[str, Any]
    bots: tuple[str, ...]
    seed: int
    rotation: int
    keep_record: bool = False


@dataclass
class GameOutcome:
    """One game, seen per entry of the line-up (not per seat)."""

    scores: list[float]
    segment_points: list[list[float]]
    winners: list[int]
    contracts: list[tuple[int, int]] | None
    decision_seconds: list[list[float]]
    record: Record | None = None
    """The game's record, its seats named ``entry:bot`` (``2:easy``), when the job asks."""


def play_job(job: Job) -> GameOutcome:
    """Play one deal with the line-up rotated by ``job.rotation``; runs in a worker."""
    game = load_game(job.game, job.players, **job.options)
    entries = len(job.bots)
    entry_at = [(seat - job.rotation) % entries for seat in range(entries)]
    lineup = [make_bot(job.bots[entry_at[seat]], game) for seat in range(entries)]
    thinking: list[list[float]] = [[] for _ in range(entries)]
    snapshots = [game.new_initial_state(job.seed).returns()]
    segments = [0]

    def record(state: State, player: int, seconds: float) -> None:
        if player >= 0:
            thinking[entry_at[player]].append(seconds)
        if state.segment() != segments[-1] or state.is_terminal():
            segments.append(state.segment())
            snapshots.append(state.returns())

    state = play_match(game, lineup, job.seed, rng_keys=entry_at, on_step=record)
    by_entry = [0] * entries
    for seat in range(entries):
        by_entry[entry_at[seat]] = seat
    scores = state.returns()
    points = [
        [after[by_entry[entry]] - before[by_entry[entry]] for entry in range(entries)]
        for before, after in pairwise(snapshots)
    ]
    contracts = state.observation(None).contracts()  # per seat, (bids made, bids)
    return GameOutcome(
        scores=[scores[by_entry[entry]] for entry in range(entries)],
        segment_points=points,
        winners=[entry_at[seat] for seat in state.winners()],
        contracts=None if contracts is None else [contracts[by_entry[e]] for e in range(entries)],
        decision_seconds=thinking,
        record=(
            record_of(
                state,
                [f"{entry_at[seat] + 1}:{job.bots[entry_at[seat]]}" for seat in range(entries)],
            )
            if job.keep_record
            else None
        ),
    )


@dataclass
class EntryReport:
    """One entry of the line-up; its estimates' ``count`` is the number of deals."""

    entry: int
    bot: str
    games: int
    mean_score: Estimate
    margin_per_game: Estimate
    margin_per_segment: Estimate | None
    win_rate: float
    contracts_made: float | None
    rating_mu: float
    rating_sigma: float
    mean_decision_seconds: float
    max_decision_seconds: float
    scores: list[float] = field(repr=False)
    margins: list[float] = field(repr=False)


INTERVALS = (
    "95% Student t-intervals over the means of the deals (the rotations of a deal share its cards)"
)


@dataclass
class ArenaReport:
    game: str
    players: int
    options: dict[str, Any]
    bots: list[str]
    deals: int
    seed: int
    entries: list[EntryReport]

    def to_dict(self) -> dict[str, Any]:
        data = asdict(self) | {"intervals": INTERVALS}
        for entry in data["entries"]:
            entry.pop("scores")
            entry.pop("margins")
        return data


def run_arena(
    game: str,
    bots: Sequence[str],
    deals: int,
    seed: int = 0,
    options: dict[str, Any] | None = None,
    workers: int = 1,
    advance: Callable[[], None] | None = None,
    ray_address: str | None = None,
    records: str | os.PathLike[str] | None = None,
) -> ArenaReport:
    """Play ``deals`` deals, each once per rotation of ``bots``; ``advance`` ticks per game.

    With ``records`` (a folder, made if missing) every game's record is saved there as it
    ends, named by deal and rotation so that the files sort in order (``wizard-007-2.txt``:
    deal 7 of 100 to 999, rotation 2; each number padded to the width of its count, see
    ``record_path``); a folder that cannot be written is refused before any game.

    With ``ray_address`` the games are Ray tasks: ``"local"`` starts a Ray of this machine,
    an address (``HEAD:6379``) joins that cluster, ``"auto"`` the one this machine belongs to.
    """
    options = dict(options or {})
    players = len(bots)
    load_game(game, players, **options)
    folder = None if records is None else records_folder(records)
    jobs = [
        Job(game, players, options, tuple(bots), deal_seed, rotation, folder is not None)
        for deal_seed in game_seeds(seed, deals)
        for rotation in range(players)
    ]
    outcomes: list[GameOutcome] = []
    for index, outcome in enumerate(_play(jobs, workers, ray_address)):
        if folder is not None and outcome.record is not None:
            deal, rotation = divmod(index, players)
            path = record_path(folder, game, (deal + 1, deals), (rotation + 1, players))
            save_record(outcome.record, path)
            outcome.record = None  # written: the report does not keep it
        outcomes.append(outcome)
        if advance:
            advance()
    deal_of = [index // players for index in range(len(jobs))]  # the jobs go deal by deal
    entries = _entries(bots, outcomes, deal_of)
    return ArenaReport(game, players, options, list(bots), deals, seed, entries)


def _play(jobs: list[Job], workers: int, ray_address: str | None) -> Iterator[GameOutcome]:
    """The outcomes of ``jobs`` in their order, wherever they are played."""
    if ray_address is not None:
        yield from _play_on_ray(jobs, ray_address)
    elif workers > 1:
        with multiprocessing.get_context("spawn").Pool(workers) as pool:
            yield from pool.imap(play_job, jobs)
    else:
        yield from map(play_job, jobs)


def _play_on_ray(jobs: list[Job], address: str) -> Iterator[GameOutcome]:
    """One Ray task per game; every machine of the cluster needs tapisvert installed."""
    with needs("ray", "--ray (the arena on Ray)"):
        import ray

    _start_ray(address)
    try:
        task = ray.remote(play_job)
        for pending in [task.remote(job) for job in jobs]:
            outcome: GameOutcome = ray.get(pending)
            yield outcome
    finally:
        ray.shutdown()


LOCAL_RAY_ATTEMPTS = 3
"""A local Ray node gives its processes 30 s to start, which a busy machine can exceed."""


def _start_ray(address: str) -> None:
    """Joins the cluster at ``address``, or starts a local node, trying that again after a
    start that timed out (the half-started node is shut down first)."""
    import ray

    attempts = LOCAL_RAY_ATTEMPTS if address == "local" else 1
    for attempt in range(1, attempts + 1):
        try:
            ray.init(address=address, include_dashboard=False, log_to_driver=False)
            return
        except Exception as error:
            if attempt == attempts or "timed out during startup" not in str(error):
                raise
            ray.shutdown()


def _entries(
    bots: Sequence[str], outcomes: list[GameOutcome], deal_of: list[int]
) -> list[EntryReport]:
    """Each entry's figures; ``deal_of`` names the deal of each outcome, for the intervals."""
    from openskill.models import PlackettLuce

    model = PlackettLuce()
    ratings = [model.rating(name=f"{index}:{bot}") for index, bot in enumerate(bots)]
    for outcome in outcomes:
        ranks = [-score for score in outcome.scores]
        updated = model.rate([[rating] for rating in ratings], ranks=ranks)
        ratings = [team[0] for team in updated]
    reports = []
    for entry, bot in enumerate(bots):
        scores = [outcome.scores[entry] for outcome in outcomes]
        margins = [
            outcome.scores[entry]
            - statistics.fmean(
                score for other, score in enumerate(outcome.scores) if other != entry
            )
            for outcome in outcomes
        ]
        segment_margins = [
            points[entry] - statistics.fmean(p for other, p in enumerate(points) if other != entry)
            for outcome in outcomes
            for points in outcome.segment_points
        ]
        segment_deals = [
            deal
            for outcome, deal in zip(outcomes, deal_of, strict=True)
            for _ in outcome.segment_points
        ]
        wins = sum(1 / len(outcome.winners) for outcome in outcomes if entry in outcome.winners)
        contracts = [outcome.contracts[entry] for outcome in outcomes if outcome.contracts]
        thinking = [t for outcome in outcomes for t in outcome.decision_seconds[entry]]
        reports.append(
            EntryReport(
                entry=entry + 1,
                bot=bot,
                games=len(outcomes),
                mean_score=grouped_mean_interval(scores, deal_of),
                margin_per_game=grouped_mean_interval(margins, deal_of),
                margin_per_segment=(
                    grouped_mean_interval(segment_margins, segment_deals)
                    if segment_margins
                    else None
                ),
                win_rate=wins / len(outcomes),
                contracts_made=(
                    sum(made for made, _ in contracts) / sum(total for _, total in contracts)
                    if contracts
                    else None
                ),
                rating_mu=ratings[entry].mu,
                rating_sigma=ratings[entry].sigma,
                mean_decision_seconds=statistics.fmean(thinking) if thinking else 0.0,
                max_decision_seconds=max(thinking, default=0.0),
                scores=scores,
                margins=margins,
            )
        )
    return reports


INTERVAL_CAPTION = "error bars: 95% t-interval over the means of the {deals} deals"


def save_plots(report: ArenaReport, folder: Path) -> list[Path]:
    """Score distributions and margins with their 95% intervals (t-intervals over the deals'
    means), as PNG files."""
    import matplotlib

    matplotlib.use("Agg")
    import matplotlib.pyplot as plt

    folder.mkdir(parents=True, exist_ok=True)
    labels = [f"{entry.entry}: {entry.bot}" for entry in report.entries]
    paths = []
    figure, axes = plt.subplots(figsize=(7, 4))
    axes.boxplot([entry.scores for entry in report.entries], tick_labels=labels)
    axes.set_title(
        f"{report.game}: final scores ({report.deals} deals x {report.players} rotations)"
    )
    axes.set_ylabel("score")
    path = folder / f"{report.game}-scores.png"
    figure.tight_layout()
    figure.savefig(path, dpi=110)
    plt.close(figure)
    paths.append(path)
    figure, axes = plt.subplots(figsize=(7, 4))
    means = [entry.margin_per_game.mean for entry in report.entries]
    errors = [entry.margin_per_game.high - entry.margin_per_game.mean for entry in report.entries]
    axes.bar(labels, means, yerr=errors, capsize=6, color="#2e7d32")
    axes.axhline(0, color="black", linewidth=0.8)
    axes.set_title(f"{report.game}: margin per game over the other seats")
    axes.set_ylabel("points")
    axes.set_xlabel(INTERVAL_CAPTION.format(deals=report.deals))
    path = folder / f"{report.game}-margins.png"
    figure.tight_layout()
    figure.savefig(path, dpi=110)
    plt.close(figure)
    paths.append(path)
    return paths
