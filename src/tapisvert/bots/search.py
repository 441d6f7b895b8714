"""Search bots that never cheat: hidden information is drawn only by
``game.sample_state(observation, rng)``.

``ISMCTSBot`` is single-observer Information-Set MCTS: every iteration draws a world
consistent with the bot's observation (a determinization), walks a tree whose nodes are
the bot's own information sets — keyed by its observation, so moves it cannot see, such
as a sealed bid or a card drawn by another seat, never split a node (decoupled selection)
— picks moves by UCB with availability counts, finishes the scoring segment (round, deal,
or game) with a rollout policy, and backs up each seat's points. ``PIMCBot`` is flat
Perfect-Information Monte Carlo: each action is tried in many determinizations and scored
by rollouts. ``HalvingBot`` is flat too, but compares the options on the same worlds and
random draws and spends its budget by sequential halving. A game's search profile may name
an abstraction of its actions (the ones worth weighing) and a value for where a rollout
stops. In Luz, where a player does not see their own cards, the tree re-draws the
world from each opponent's point of view before that opponent moves, so the bot's sampled
hand never informs the opponents' modelled play.
"""

from __future__ import annotations

import math
import os
import random
import time
from abc import ABC, abstractmethod
from collections.abc import Callable, Hashable, Sequence
from dataclasses import dataclass
from typing import Any

from tapisvert.bots.base import Bot, make_bot, register_bot
from tapisvert.bots.random_bot import RandomBot
from tapisvert.core.game import CHANCE, TERMINAL, Action, Game, Observation, State
from tapisvert.core.registry import plugin


@dataclass(frozen=True)
class SearchSettings:
    iterations: int = 1000
    """The budget: iterations per decision (deterministic for a given rng)."""
    seconds: float | None = None
    """An optional wall-clock cap per decision, on top of the iterations."""
    exploration: float = 0.7
    rollout: str = "heuristic"
    """``heuristic``: each seat's heuristic bot plays the rollouts; ``random``: uniform moves."""
    relative: bool = False
    """Score each seat by its lead over the mean of the others, not by its own points: right
    where a move mostly takes from the others (a steal)."""
    horizon: int | None = None
    """At most this many decisions per rollout, then the running scores are the value
    (``None``: play to the end of the scoring segment)."""


class _Edge:
    __slots__ = ("available", "total", "visits")

    def __init__(self) -> None:
        self.visits = 0
        self.total = 0.0
        self.available = 0


Tree = dict[Hashable, dict[Action, _Edge]]
"""The bot's information sets and the edges out of each: an information set is keyed by the
bot's observation there, or, where a public action led to it from another (see
``State.public_action``), by that one's edges and the action, which tell the same."""


class _Searcher:
    """What both search bots share: determinizations, rollouts, the reward scale."""

    def __init__(self, game: Game[Any], settings: SearchSettings) -> None:
        self.game = game
        self.settings = settings
        profile = plugin(game.name).search
        self.redeterminize = profile.redeterminize
        self.candidates = profile.candidates
        self.shortlist = profile.shortlist
        self.value: Callable[[State], list[float]] = profile.value or _running_points
        policy: Bot = RandomBot()
        if settings.rollout == "heuristic":
            try:
                policy = make_bot("heuristic", game)
            except ValueError:
                policy = RandomBot()
        self.policy = policy
        self.fast_policy = profile.rollout_policy if settings.rollout == "heuristic" else None
        """The heuristic read off the position, where the game gives one."""
        self.scale = 1.0

    def budget(self) -> Callable[[int], bool]:
        deadline = (
            None if self.settings.seconds is None else time.perf_counter() + self.settings.seconds
        )

        def more(done: int) -> bool:
            if done >= self.settings.iterations:
                return False
            return deadline is None or done == 0 or time.perf_counter() < deadline

        return more

    def rollout(self, state: State, segment: int, rng: random.Random) -> None:
        """Play the scoring segment to its end with the rollout policy."""
        random_policy = self.settings.rollout == "random"
        decisions_left = self.settings.horizon
        while True:
            player = state.current_player()
            if player == TERMINAL or state.segment() != segment or decisions_left == 0:
                return
            if decisions_left is not None and player != CHANCE:
                decisions_left -= 1
            if player == CHANCE:
                state.resolve_chance(rng)
                continue
            legal = state.legal_actions()
            if random_policy or len(legal) == 1:
                state.apply_action(legal[int(rng.random() * len(legal))])
            elif self.fast_policy is not None:
                state.apply_action(self.fast_policy(state, legal, rng))
            else:
                state.apply_action(
                    self.policy.choose(state.unshared_observation(player), legal, rng)
                )

    def searched(self, legal: list[Action]) -> list[Action]:
        """The legal actions the search weighs: the game's abstraction of them, if any."""
        return legal if self.candidates is None else self.candidates(legal)

    def rewards(self, state: State, base: list[float]) -> list[float]:
        gained = [after - before for after, before in zip(self.value(state), base, strict=True)]
        if self.settings.relative and len(gained) > 1:
            total = sum(gained)
            others = len(gained) - 1
            gained = [value - (total - value) / others for value in gained]
        self.scale = max(self.scale, *(abs(value) for value in gained))
        return gained


def _running_points(state: State) -> list[float]:
    return state.returns()


class ISMCTSBot:
    def __init__(self, game: Game[Any], settings: SearchSettings | None = None) -> None:
        self.searcher = _Searcher(game, settings or SearchSettings())
        self.iterations_done = 0

    def choose(
        self, observation: Observation, legal_actions: Sequence[Action], rng: random.Random
    ) -> Action:
        if len(legal_actions) == 1:
            return legal_actions[0]
        searcher = self.searcher
        searcher.scale = 1.0
        tree: Tree = {}
        more = searcher.budget()
        done = 0
        while more(done):
            self._iterate(observation, tree, rng)
            done += 1
        self.iterations_done = done
        root = tree.get(observation, {})
        return max(
            searcher.searched(list(legal_actions)),
            key=lambda action: (root[action].visits if action in root else -1, -action),
        )

    def _iterate(self, observation: Observation, tree: Tree, rng: random.Random) -> None:
        searcher = self.searcher
        game = searcher.game
        observer = observation.seat
        state = game.sample_state(observation, rng)
        base = searcher.value(state)
        segment = state.segment()
        path: list[tuple[_Edge, int]] = []
        exploration = searcher.settings.exploration
        # The world drawn shows the observer what it was drawn from (``sample_state``'s
        # contract): at the root the key is that observation, not one built again.
        key: Hashable | None = observation
        while True:
            player = state.current_player()
            if player == TERMINAL or state.segment() != segment:
                break
            if player == CHANCE:
                state.resolve_chance(rng)
                key = None
                continue
            if searcher.redeterminize and player != observer:
                state = game.sample_state(state.unshared_observation(player), rng)
                key = None  # the world the observer sees has changed
            if key is None:
                key = state.unshared_observation(observer)
            edges = tree.setdefault(key, {})
            legal = searcher.searched(state.legal_actions())
            untried = []
            for action in legal:
                edge = edges.get(action)
                if edge is None:
                    edge = edges[action] = _Edge()
                edge.available += 1
                if not edge.visits:
                    untried.append(action)
            if untried:
                action = untried[int(rng.random() * len(untried))]
            else:
                action = _upper_bound_choice(edges, legal, searcher.scale, exploration)
            path.append((edges[action], player))
            key = (id(edges), action) if state.public_action(action) else None
            state.apply_action(action)
            if untried:
                break
        searcher.rollout(state, segment, rng)
        gained = searcher.rewards(state, base)
        for edge, player in path:
            edge.visits += 1
            edge.total += gained[player]


def _upper_bound_choice(
    edges: dict[Action, _Edge], legal: list[Action], scale: float, exploration: float
) -> Action:
    """The first of ``legal`` (each tried already) with the greatest upper confidence bound,
    as ``max`` would choose it, in one pass over the edges."""
    best_action, best = legal[0], -math.inf
    for action in legal:
        edge = edges[action]
        visits = edge.visits
        bound = edge.total / (visits * scale) + exploration * math.sqrt(
            math.log(edge.available) / visits
        )
        if bound > best:
            best_action, best = action, bound
    return best_action


class _World:
    """A world drawn from the bot's observation, with what its play-outs are measured from."""

    __slots__ = ("base", "segment", "state")

    def __init__(self, searcher: _Searcher, observation: Observation, rng: random.Random) -> None:
        self.state = searcher.game.sample_state(observation, rng)
        self.base = searcher.value(self.state)
        self.segment = self.state.segment()


class _Scores:
    """The play-outs of the bot's options so far, from its seat, and the budget left."""

    def __init__(self, searcher: _Searcher, observation: Observation) -> None:
        self.searcher = searcher
        self.observation = observation
        self.seat = observation.seat if observation.seat is not None else 0
        self.totals: dict[Action, float] = {}
        self.counts: dict[Action, int] = {}
        self.done = 0
        self._more = searcher.budget()

    def more(self) -> bool:
        return self._more(self.done)

    def world(self, rng: random.Random) -> _World:
        return _World(self.searcher, self.observation, rng)

    def play_out(self, world: _World, action: Action, rng: random.Random) -> None:
        trial = world.state.clone()
        trial.apply_action(action)
        self.searcher.rollout(trial, world.segment, rng)
        self.totals[action] = (
            self.totals.get(action, 0.0) + (self.searcher.rewards(trial, world.base)[self.seat])
        )
        self.counts[action] = self.counts.get(action, 0) + 1
        self.done += 1

    def mean(self, action: Action) -> float:
        count = self.counts.get(action, 0)
        return self.totals[action] / count if count else -math.inf


class _FlatSearch(ABC):
    """What the flat searches share: the bot's options scored by play-outs in worlds drawn
    from its observation, the best mean chosen; ``spend`` says how the budget is spent."""

    default_iterations = 200

    def __init__(self, game: Game[Any], settings: SearchSettings | None = None) -> None:
        self.searcher = _Searcher(
            game, settings or SearchSettings(iterations=self.default_iterations)
        )
        self.iterations_done = 0

    def choose(
        self, observation: Observation, legal_actions: Sequence[Action], rng: random.Random
    ) -> Action:
        if len(legal_actions) == 1:
            return legal_actions[0]
        searcher = self.searcher
        options = searcher.searched(list(legal_actions))
        if searcher.shortlist is not None:
            options = searcher.shortlist(observation, options)
        scores = _Scores(searcher, observation)
        finalists = self.spend(scores, options, rng)
        self.iterations_done = scores.done
        return max(finalists, key=lambda action: (scores.mean(action), -action))

    @abstractmethod
    def spend(self, scores: _Scores, options: list[Action], rng: random.Random) -> list[Action]:
        """Play the options out within the budget; the options still in the race."""


class HalvingBot(_FlatSearch):
    """Flat Monte Carlo over the bot's own options by sequential halving.

    Each round draws worlds from the observation and plays every option still in the race
    out in each of them, all from the same random draws, then keeps the better half: options
    are compared on the same luck, and the budget goes to the ones that stay close. The
    opponents play as the heuristic bots from the first move on, where IS-MCTS would
    explore their replies: right where options are many and the heuristic models the
    opponents well (an auction's sealed bids).
    """

    default_iterations = 600

    def spend(self, scores: _Scores, options: list[Action], rng: random.Random) -> list[Action]:
        rounds = max(1, math.ceil(math.log2(len(options))))
        iterations = self.searcher.settings.iterations
        while len(options) > 1 and scores.more():
            for _ in range(max(1, iterations // (rounds * len(options)))):
                if not scores.more():
                    break
                world = scores.world(rng)
                draws = rng.getrandbits(64)
                for action in options:
                    if not scores.more():
                        break
                    scores.play_out(world, action, random.Random(draws))
            options = sorted(options, key=lambda action: (-scores.mean(action), action))
            options = options[: max(1, len(options) // 2)]
        return options


class PIMCBot(_FlatSearch):
    """Flat Monte Carlo: each option in turn, played out in a world drawn afresh."""

    def spend(self, scores: _Scores, options: list[Action], rng: random.Random) -> list[Action]:
        while scores.more():
            scores.play_out(scores.world(rng), options[scores.done % len(options)], rng)
        return options


def expected_points(
    game: Game[Any],
    observation: Observation,
    actions: Sequence[Action],
    samples: int,
    rng: random.Random,
) -> dict[Action, float]:
    """What the observation's seat can expect to score with each of ``actions`` by the end
    of the scoring segment (the round, the deal, the game).

    The same ``samples`` worlds, drawn from the observation alone, serve every action, and
    each action's play-out from one world starts from the same random draws: the actions
    differ by what they do, not by luck. The play-outs are those of ``hard``: the heuristic
    bots at every seat.
    """
    seat = observation.seat
    if seat is None:
        raise ValueError("a spectator has no move to weigh")
    searcher = _Searcher(game, SearchSettings(iterations=samples))
    totals = dict.fromkeys(actions, 0.0)
    for _ in range(samples):
        world = game.sample_state(observation, rng)
        for action, points in _play_outs(searcher, world, seat, actions, rng).items():
            totals[action] += points
    return {action: total / samples for action, total in totals.items()}


def points_in_state(
    state: State, actions: Sequence[Action], play_outs: int, rng: random.Random
) -> dict[Action, float]:
    """What the player to move scores on average with each of ``actions`` by the end of the
    scoring segment, in ``state`` itself (all its hidden information known), played out as
    ``expected_points`` plays out a sampled world: a referee's measure, never a bot's."""
    seat = state.current_player()
    searcher = _Searcher(state.game, SearchSettings(iterations=play_outs))
    totals = dict.fromkeys(actions, 0.0)
    for _ in range(play_outs):
        for action, points in _play_outs(searcher, state, seat, actions, rng).items():
            totals[action] += points
    return {action: total / play_outs for action, total in totals.items()}


def _play_outs(
    searcher: _Searcher,
    world: State,
    seat: int,
    actions: Sequence[Action],
    rng: random.Random,
) -> dict[Action, float]:
    """``seat``'s points by the end of the segment after each action in ``world``, every
    play-out starting from the same random draws."""
    base = world.returns()[seat]
    segment = world.segment()
    draws = rng.getrandbits(64)
    points = {}
    for action in actions:
        trial = world.clone()
        trial.apply_action(action)
        searcher.rollout(trial, segment, random.Random(draws))
        points[action] = trial.returns()[seat] - base
    return points


BUDGET_SCALE_VARIABLE = "TAPISVERT_SEARCH_SCALE"
"""An environment variable that scales the level budgets (``0.1`` for a quick look)."""


def level_bot(level: str) -> Callable[[Game[Any]], Bot]:
    """``medium`` or ``hard`` with the budget and settings of the game's search profile; a
    one-second cap per decision guards machines slower than the one they were sized on."""

    def build(game: Game[Any]) -> Bot:
        profile = plugin(game.name).search
        scale = float(os.environ.get(BUDGET_SCALE_VARIABLE, "1"))
        budget = profile.hard if level == "hard" else profile.medium
        settings = SearchSettings(
            iterations=max(1, round(budget * scale)),
            seconds=1.0,
            horizon=profile.horizon,
            relative=profile.relative,
        )
        method = profile.method
        if level != "hard" and profile.medium_method is not None:
            method = profile.medium_method
        if method == "halving":
            return HalvingBot(game, settings)
        return ISMCTSBot(game, settings)

    return build


register_bot("medium", level_bot("medium"))
register_bot("hard", level_bot("hard"))
register_bot("ismcts", lambda game: ISMCTSBot(game, SearchSettings(rollout="random")))
register_bot("pimc", lambda game: PIMCBot(game))
register_bot("halving", lambda game: HalvingBot(game))
