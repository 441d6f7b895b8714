"""Is the review calibrated? Over many bot games, does the loss it gives a move predict the
points the move actually lost?

For each game, one seat (``random`` in half the games, ``easy`` in the others, so that its
decisions range from blunders to sound moves) plays against ``easy`` bots; the game is then
reviewed for that seat from its own information (``tapisvert.review.review_game``: worlds
drawn from its observation). At each decision where the review names a better move than the
one played, the **predicted loss** is the review's cost (best option's expected points minus
the move played's). The **realised loss** is measured where the review could not look: in
the game's true position, every hand known, the best option and the move played are each
played out to the end of the scoring segment, the same way as the review plays out (the
heuristic bots at every seat, the same random draws for both moves), and the difference of
the seat's points is averaged. A calibrated review has realised ≈ predicted: a slope of 1.

Second figure: the expected points of the move played against the points the seat really
scored from that decision to the end of the segment in the game itself.

The slopes are least squares with an intercept; their 95% intervals come from resampling
whole games (decisions within one game are not independent).

Run: ``.venv/bin/python benchmarks/review_calibration.py --game wizard --option
rounds=first5 --games 40`` (the plot goes to ``docs/plots/review-calibration-GAME.png``).
"""

from __future__ import annotations

import argparse
import random
import statistics
import time
from dataclasses import dataclass
from pathlib import Path

import matplotlib

matplotlib.use("Agg")
import matplotlib.pyplot as plt

from tapisvert import load_game
from tapisvert.bots import make_bot
from tapisvert.bots.match import game_seeds, play_match
from tapisvert.bots.search import points_in_state
from tapisvert.core.game import State
from tapisvert.core.records import record_of
from tapisvert.review import review_game


@dataclass(frozen=True)
class Point:
    game: int
    predicted_loss: float
    realised_loss: float
    expected: float
    """Expected points of the move played, from the seat's view."""
    scored: float
    """Points the seat scored from this decision to the end of the segment, in the game."""


def positions_of(final: State, seat: int) -> dict[int, tuple[State, float]]:
    """Before each of ``seat``'s moves (by move number): the true position, and the points
    the seat went on to score by the end of that segment in the game."""
    game = final.game
    state = game.new_initial_state()
    before: dict[int, State] = {}
    at_segment_end: dict[int, float] = {}
    for number, action in enumerate(final.history(), start=1):
        if state.current_player() == seat:
            before[number] = state.clone()
        segment = state.segment()
        state.apply_action(action)
        if state.segment() != segment or state.is_terminal():
            for pending, position in before.items():
                if pending not in at_segment_end and position.segment() == segment:
                    at_segment_end[pending] = state.returns()[seat]
    return {
        number: (position, at_segment_end[number] - position.returns()[seat])
        for number, position in before.items()
    }


def measure_game(
    game_name: str,
    options: dict[str, str],
    index: int,
    seed: int,
    samples: int,
    play_outs: int,
) -> list[Point]:
    game = load_game(game_name, 4, **options)
    reviewed = "random" if index % 2 else "easy"
    bots = [make_bot(reviewed, game), *(make_bot("easy", game) for _ in range(3))]
    final = play_match(game, bots, seed)
    decisions = review_game(record_of(final), seat=0, samples=samples, seed=seed)
    positions = positions_of(final, 0)
    rng = random.Random(seed)
    points = []
    for decision in decisions:
        state, scored = positions[decision.step]
        if len(decision.options) < 2:
            continue
        best, played = decision.best.action, decision.played.action
        realised = 0.0
        if best != played:
            outcome = points_in_state(state, [best, played], play_outs, rng)
            realised = outcome[best] - outcome[played]
        points.append(Point(index, decision.cost, realised, decision.played.expected, scored))
    return points


def slope(pairs: list[tuple[float, float]]) -> float:
    xs, ys = zip(*pairs, strict=True)
    return statistics.linear_regression(xs, ys).slope


def slope_interval(
    points: list[Point], x: str, y: str, rng: random.Random, resamples: int = 2000
) -> tuple[float, float, float]:
    """The fitted slope of ``y`` on ``x``, and a 95% interval from resampling whole games."""
    by_game: dict[int, list[tuple[float, float]]] = {}
    for point in points:
        by_game.setdefault(point.game, []).append((getattr(point, x), getattr(point, y)))
    games = list(by_game)
    fitted = slope([pair for pairs in by_game.values() for pair in pairs])
    slopes = []
    for _ in range(resamples):
        drawn = [pair for game in rng.choices(games, k=len(games)) for pair in by_game[game]]
        if len({px for px, _ in drawn}) > 1:
            slopes.append(slope(drawn))
    slopes.sort()
    return fitted, slopes[int(0.025 * len(slopes))], slopes[int(0.975 * len(slopes)) - 1]


BIN_COUNT = 8
"""The decisions, sorted by prediction, are cut into this many bins of equal counts."""


def binned_means(xs: list[float], ys: list[float]) -> tuple[list[float], list[float], list[float]]:
    """Per bin of predictions: its mean prediction, the mean outcome, and the 95% half-width
    of that mean; the scatter alone hides the trend under the noise of single decisions."""
    pairs = sorted(zip(xs, ys, strict=True))
    size = max(2, len(pairs) // BIN_COUNT)
    centres, means, errors = [], [], []
    for start in range(0, len(pairs) - size + 1, size):
        chunk = pairs[start : start + size] if start + 2 * size <= len(pairs) else pairs[start:]
        outcomes = [y for _, y in chunk]
        centres.append(statistics.fmean(x for x, _ in chunk))
        means.append(statistics.fmean(outcomes))
        errors.append(1.96 * statistics.stdev(outcomes) / len(outcomes) ** 0.5)
        if len(chunk) > size:
            break
    return centres, means, errors


def plot(
    points: list[Point],
    loss_fit: tuple[float, float, float],
    points_fit: tuple[float, float, float],
    title: str,
    path: Path,
) -> None:
    losses = [point for point in points if point.predicted_loss > 0]
    figure, (left, right) = plt.subplots(1, 2, figsize=(11, 5))
    for axes, chosen, x, y, fit, xlabel, ylabel in (
        (
            left,
            losses,
            "predicted_loss",
            "realised_loss",
            loss_fit,
            "loss predicted by the review (points)",
            "loss realised in the true position (points)",
        ),
        (
            right,
            points,
            "expected",
            "scored",
            points_fit,
            "expected points of the move played (review)",
            "points scored to the end of the segment (game)",
        ),
    ):
        xs = [getattr(point, x) for point in chosen]
        ys = [getattr(point, y) for point in chosen]
        axes.scatter(xs, ys, s=8, alpha=0.35, color="tab:blue", label="decisions")
        centres, means, errors = binned_means(xs, ys)
        axes.errorbar(
            centres,
            means,
            yerr=errors,
            fmt="s",
            color="black",
            markersize=5,
            capsize=3,
            label=f"mean of {BIN_COUNT} equal bins (95%)",
        )
        low, high = min(xs), max(xs)
        axes.plot([low, high], [low, high], color="grey", linestyle=":", label="slope 1")
        intercept = statistics.fmean(ys) - fit[0] * statistics.fmean(xs)
        axes.plot(
            [low, high],
            [intercept + fit[0] * low, intercept + fit[0] * high],
            color="tab:red",
            label=f"fitted slope {fit[0]:.2f} [{fit[1]:.2f}, {fit[2]:.2f}]",
        )
        axes.set_xlabel(xlabel)
        axes.set_ylabel(ylabel)
        axes.legend(loc="upper left", fontsize=9)
        axes.grid(alpha=0.3)
    left.set_title(f"Loss: {len(losses)} decisions with a better move")
    right.set_title(f"Points: {len(points)} decisions")
    figure.suptitle(title)
    figure.tight_layout()
    path.parent.mkdir(parents=True, exist_ok=True)
    figure.savefig(path, dpi=110)
    plt.close(figure)


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--game", default="wizard")
    parser.add_argument("--option", action="append", default=[], help="KEY=VALUE")
    parser.add_argument("--games", type=int, default=40)
    parser.add_argument("--samples", type=int, default=40, help="worlds per decision (review)")
    parser.add_argument("--play-outs", type=int, default=10, help="per move, true position")
    parser.add_argument("--seed", type=int, default=1)
    parser.add_argument("--plot", type=Path, default=None)
    arguments = parser.parse_args()
    options = dict(option.split("=", 1) for option in arguments.option)

    started = time.perf_counter()
    points: list[Point] = []
    for index, seed in enumerate(game_seeds(arguments.seed, arguments.games)):
        points += measure_game(
            arguments.game, options, index, seed, arguments.samples, arguments.play_outs
        )
    losses = [point for point in points if point.predicted_loss > 0]
    rng = random.Random(arguments.seed)
    loss_fit = slope_interval(losses, "predicted_loss", "realised_loss", rng)
    points_fit = slope_interval(points, "expected", "scored", rng)
    described = ", ".join(f"{key}={value}" for key, value in options.items())
    print(
        f"{arguments.game} ({described or 'default options'}): {arguments.games} games, "
        f"{len(points)} decisions reviewed, {len(losses)} with a better move "
        f"({time.perf_counter() - started:.0f} s)"
    )
    print(
        f"  predicted loss: mean {statistics.fmean(p.predicted_loss for p in losses):.2f}; "
        f"realised loss: mean {statistics.fmean(p.realised_loss for p in losses):.2f}"
    )
    print(
        f"  realised loss on predicted loss: slope {loss_fit[0]:.3f} "
        f"(95% CI {loss_fit[1]:.3f} to {loss_fit[2]:.3f})"
    )
    print(
        f"  points scored on expected points: slope {points_fit[0]:.3f} "
        f"(95% CI {points_fit[1]:.3f} to {points_fit[2]:.3f})"
    )
    path = arguments.plot or Path(f"docs/plots/review-calibration-{arguments.game}.png")
    title = (
        f"Review calibration, {arguments.game}: {arguments.games} games, "
        f"{arguments.samples} worlds per decision"
    )
    plot(points, loss_fit, points_fit, title, path)
    print(f"  plot: {path}")


if __name__ == "__main__":
    main()
