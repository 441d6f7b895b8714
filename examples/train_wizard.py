"""Train a small policy to play a short Wizard game against tapisvert's ``easy`` bots.

Proof that the research interfaces work end to end: the learner is seat 0 of a 4-player
Wizard game of the first five rounds, through the Gymnasium interface
(``tapisvert.envs.gymnasium.SingleSeatEnv``), the three other seats played by the ``easy``
bot. The policy is a small perceptron in JAX over the observation tensor, its illegal
actions masked out, trained on CPU by proximal policy optimisation: rlax's clipped surrogate
loss and generalised advantage estimation, optax's Adam, and an entropy bonus.

Every few updates the policy plays a fixed set of evaluation deals greedily; its mean score
per game there is the learning curve, plotted with matplotlib against the ``random`` and
``easy`` bots playing the same seat on the same deals against the same opponents.

Needs the ``train`` extra (``pip install -e ".[train]"``: jax, optax, rlax)::

    python examples/train_wizard.py --plot docs/plots/wizard-training.png
"""

from __future__ import annotations

import argparse
import math
import random
import time
from collections.abc import Callable, Sequence
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any, NamedTuple

import jax
import jax.numpy as jnp
import matplotlib
import numpy
import optax
import rlax

from tapisvert.bots import make_bot
from tapisvert.envs.gymnasium import SingleSeatEnv
from tapisvert.games.wizard.rules import WizardGame

matplotlib.use("Agg")
import matplotlib.pyplot as plt

PLAYERS = 4
ROUNDS = "first5"
OPPONENTS = "easy"
REWARD_SCALE = 0.1
"""Wizard pays in tens of points; the value head learns returns of a few units."""
EVALUATION_SEEDS = 1_000_000
"""Evaluation deals are ``reset`` seeds from here on; training deals are drawn below."""

Params = dict[str, jax.Array]
Chooser = Callable[[SingleSeatEnv, dict[str, Any]], int]


def make_env() -> SingleSeatEnv:
    """Seat 0 of the short Wizard game, the others played by ``easy`` bots."""
    return SingleSeatEnv("wizard", players=PLAYERS, seat=0, opponents=OPPONENTS, rounds=ROUNDS)


def horizon(env: SingleSeatEnv) -> int:
    """The most decisions of seat 0 in one game: a bid, its cards and a trump per round."""
    game = env.table.game
    assert isinstance(game, WizardGame)
    return sum(cards + 2 for cards in game.round_numbers)


def init_params(key: jax.Array, inputs: int, actions: int, hidden: int) -> Params:
    """Two hidden layers; the output holds the action logits, then the value."""
    sizes = [(inputs, hidden), (hidden, hidden), (hidden, actions + 1)]
    params: Params = {}
    for layer, ((fan_in, fan_out), layer_key) in enumerate(
        zip(sizes, jax.random.split(key, len(sizes)), strict=True)
    ):
        scale = math.sqrt(2.0 / fan_in) if layer < len(sizes) - 1 else 0.01
        params[f"w{layer}"] = scale * jax.random.normal(layer_key, (fan_in, fan_out))
        params[f"b{layer}"] = jnp.zeros(fan_out)
    return params


def forward(params: Params, observation: jax.Array, mask: jax.Array) -> tuple[jax.Array, jax.Array]:
    """Logits with the illegal actions pushed out of reach, and the value of the position."""
    hidden = jax.nn.relu(observation @ params["w0"] + params["b0"])
    hidden = jax.nn.relu(hidden @ params["w1"] + params["b1"])
    out = hidden @ params["w2"] + params["b2"]
    return jnp.where(mask, out[..., :-1], -1e9), out[..., -1]


def log_probabilities(logits: jax.Array, actions: jax.Array) -> jax.Array:
    """The log-probability of each chosen action under the logits."""
    chosen = jnp.take_along_axis(jax.nn.log_softmax(logits), actions[..., None], axis=-1)
    return chosen[..., 0]


@jax.jit
def sample(
    params: Params, observation: jax.Array, mask: jax.Array, key: jax.Array
) -> tuple[jax.Array, jax.Array, jax.Array]:
    """A batch of actions drawn from the policy, their log-probabilities and the values."""
    logits, value = forward(params, observation, mask)
    action = jax.random.categorical(key, logits)
    return action, log_probabilities(logits, action), value


@jax.jit
def greedy(params: Params, observation: jax.Array, mask: jax.Array) -> jax.Array:
    """The most likely legal action."""
    return jnp.argmax(forward(params, observation, mask)[0], axis=-1)


class Episode(NamedTuple):
    """Seat 0's decisions in one game, as the behaviour policy took them."""

    observations: numpy.ndarray
    masks: numpy.ndarray
    actions: numpy.ndarray
    log_probs: numpy.ndarray
    values: numpy.ndarray
    rewards: numpy.ndarray


class Batch(NamedTuple):
    """Episodes padded to the horizon; ``valid`` marks the real decisions."""

    observations: jax.Array
    masks: jax.Array
    actions: jax.Array
    log_probs: jax.Array
    advantages: jax.Array
    returns: jax.Array
    valid: jax.Array


def pad(rows: numpy.ndarray, length: int) -> numpy.ndarray:
    """``rows`` padded with zeros along the first axis to ``length``."""
    return numpy.pad(rows, [(0, length - len(rows))] + [(0, 0)] * (rows.ndim - 1))


@jax.jit
def advantages_and_returns(
    rewards: jax.Array, values: jax.Array, valid: jax.Array, lambda_: float
) -> tuple[jax.Array, jax.Array]:
    """Generalised advantage estimates (no discount within a game) and the value targets."""
    discounts = jnp.roll(valid, -1, axis=1).at[:, -1].set(0.0)
    bootstrap = jnp.concatenate([values, jnp.zeros_like(values[:, :1])], axis=1)
    advantages = jax.vmap(rlax.truncated_generalized_advantage_estimation, (0, 0, None, 0))(
        rewards, discounts, lambda_, bootstrap
    )
    return advantages * valid, (advantages + values) * valid


def make_batch(episodes: Sequence[Episode], length: int, lambda_: float) -> Batch:
    """Pad the episodes and estimate advantages with the behaviour policy's values."""
    valid = jnp.asarray(numpy.stack([pad(numpy.ones(len(e.actions)), length) for e in episodes]))
    padded = [
        jnp.asarray(numpy.stack([pad(e[part], length) for e in episodes]))
        for part in range(len(Episode._fields))
    ]
    observations, masks, actions, log_probs, values, rewards = padded
    advantages, returns = advantages_and_returns(rewards, values, valid, lambda_)
    mean = advantages.sum() / valid.sum()
    spread = jnp.sqrt((((advantages - mean) * valid) ** 2).sum() / valid.sum()) + 1e-8
    return Batch(
        observations,
        masks.astype(bool),
        actions.astype(jnp.int32),
        log_probs,
        (advantages - mean) / spread * valid,
        returns,
        valid,
    )


@dataclass(frozen=True)
class Settings:
    """What a training run is made of (the defaults are the documented run)."""

    updates: int = 600
    envs: int = 16
    episodes_per_update: int = 64
    epochs: int = 4
    hidden: int = 256
    learning_rate: float = 1e-3
    clip: float = 0.2
    lambda_: float = 0.95
    entropy_cost: float = 0.01
    value_cost: float = 0.5
    evaluate_every: int = 20
    evaluation_games: int = 300
    seed: int = 0


def loss(params: Params, batch: Batch, settings: Settings) -> jax.Array:
    """PPO's clipped surrogate, a value regression and an entropy bonus, over real decisions."""
    logits, values = forward(params, batch.observations, batch.masks)
    ratios = jnp.exp(log_probabilities(logits, batch.actions) - batch.log_probs).ravel()
    valid = batch.valid.ravel()
    share = valid.size / valid.sum()
    policy = share * rlax.clipped_surrogate_pg_loss(ratios, batch.advantages.ravel(), settings.clip)
    probabilities = jax.nn.softmax(logits)
    entropy = -(probabilities * jax.nn.log_softmax(logits)).sum(-1)
    bonus = -(entropy * batch.valid).sum() / batch.valid.sum()
    value = ((values - batch.returns) ** 2 * batch.valid).sum() / batch.valid.sum()
    total: jax.Array = policy + settings.value_cost * value + settings.entropy_cost * bonus
    return total


@dataclass
class Training:
    """The trained policy and its curve: evaluation score after so many training games."""

    params: Params
    games: list[int] = field(default_factory=list)
    curve: list[float] = field(default_factory=list)
    losses: list[float] = field(default_factory=list)
    seconds: float = 0.0


def train(settings: Settings, log: Callable[[str], None] = print) -> Training:
    """Collect games from ``envs`` tables in lockstep and update after each batch of games."""
    envs = [make_env() for _ in range(settings.envs)]
    length = horizon(envs[0])
    key = jax.random.PRNGKey(settings.seed)
    key, init_key = jax.random.split(key)
    params = init_params(
        init_key, envs[0].table.encoding.size, envs[0].table.encoding.action_count, settings.hidden
    )
    optimiser = optax.chain(optax.clip_by_global_norm(0.5), optax.adam(settings.learning_rate))
    state = optimiser.init(params)

    @jax.jit
    def update(params: Params, state: optax.OptState, batch: Batch) -> tuple[Params, Any, Any]:
        value, grads = jax.value_and_grad(loss)(params, batch, settings)
        changes, state = optimiser.update(grads, state, params)
        return optax.apply_updates(params, changes), state, value

    deals = numpy.random.default_rng(settings.seed)
    observations = [env.reset(seed=int(deals.integers(EVALUATION_SEEDS)))[0] for env in envs]
    running: list[list[list[Any]]] = [[] for _ in envs]
    finished: list[Episode] = []
    training = Training(params)
    started = time.perf_counter()
    evaluation = range(EVALUATION_SEEDS, EVALUATION_SEEDS + settings.evaluation_games)
    for done_updates in range(settings.updates + 1):
        if done_updates % settings.evaluate_every == 0 or done_updates == settings.updates:
            scores, _ = evaluate(policy_chooser(params), evaluation)
            training.games.append(done_updates * settings.episodes_per_update)
            training.curve.append(float(numpy.mean(scores)))
            log(
                f"update {done_updates:4}: {training.games[-1]:6} games, mean score "
                f"{training.curve[-1]:+6.1f} on {len(scores)} evaluation deals "
                f"({time.perf_counter() - started:.0f} s)"
            )
        if done_updates == settings.updates:
            break
        while len(finished) < settings.episodes_per_update:
            key, step_key = jax.random.split(key)
            actions, log_probs, values = (
                numpy.asarray(part)
                for part in sample(
                    params,
                    numpy.stack([o["observation"] for o in observations]),
                    numpy.stack([o["action_mask"] for o in observations]).astype(bool),
                    step_key,
                )
            )
            for index, env in enumerate(envs):
                seen = observations[index]
                after, reward, terminated, truncated, _ = env.step(int(actions[index]))
                running[index].append(
                    [
                        seen["observation"],
                        seen["action_mask"],
                        actions[index],
                        log_probs[index],
                        values[index],
                        REWARD_SCALE * float(reward),
                    ]
                )
                if terminated or truncated:
                    parts = zip(*running[index], strict=True)
                    finished.append(Episode(*(numpy.asarray(part) for part in parts)))
                    running[index] = []
                    after = env.reset(seed=int(deals.integers(EVALUATION_SEEDS)))[0]
                observations[index] = after
        batch = make_batch(finished[: settings.episodes_per_update], length, settings.lambda_)
        finished = finished[settings.episodes_per_update :]
        for _ in range(settings.epochs):
            params, state, value = update(params, state, batch)
            training.losses.append(float(value))
    training.params = params
    training.seconds = time.perf_counter() - started
    return training


def policy_chooser(params: Params) -> Chooser:
    """The trained policy's greedy choice at seat 0."""

    def choose(env: SingleSeatEnv, observation: dict[str, Any]) -> int:
        mask = observation["action_mask"][None].astype(bool)
        return int(greedy(params, observation["observation"][None], mask)[0])

    return choose


def random_chooser(seed: int) -> Chooser:
    """A legal action drawn uniformly, like the ``random`` bot."""
    rng = numpy.random.default_rng(seed)

    def choose(env: SingleSeatEnv, observation: dict[str, Any]) -> int:
        return int(rng.choice(numpy.flatnonzero(observation["action_mask"])))

    return choose


def bot_chooser(level: str, seed: int) -> Chooser:
    """A tapisvert bot's choice from seat 0's own observation, as an action index."""
    rng = random.Random(seed)
    bot = make_bot(level, make_env().table.game)

    def choose(env: SingleSeatEnv, observation: dict[str, Any]) -> int:
        state = env.table.state
        seen = state.observation(env.seat)
        return env.table.encoding.action_index(seen, bot.choose(seen, state.legal_actions(), rng))

    return choose


def evaluate(choose: Chooser, seeds: Sequence[int]) -> tuple[list[float], int]:
    """Seat 0's final score on each deal, and how many illegal actions ``choose`` tried."""
    env = make_env()
    scores: list[float] = []
    illegal = 0
    for seed in seeds:
        observation, _ = env.reset(seed=seed)
        total = 0.0
        while True:
            observation, reward, terminated, truncated, info = env.step(choose(env, observation))
            total += float(reward)
            illegal += bool(info.get("illegal_action"))
            if terminated or truncated:
                break
        scores.append(total)
    return scores, illegal


def interval(scores: Sequence[float]) -> tuple[float, float]:
    """The mean and the half-width of its 95% normal interval."""
    values = numpy.asarray(scores)
    return float(values.mean()), float(1.96 * values.std(ddof=1) / math.sqrt(len(values)))


def plot(
    training: Training, baselines: dict[str, tuple[float, float]], games: int, path: Path
) -> None:
    """The learning curve against the baselines' mean scores with their 95% intervals."""
    figure, axes = plt.subplots(figsize=(8, 4.5), dpi=120)
    colours = {"random": "tab:red", "easy": "tab:green"}
    for name, (mean, half) in baselines.items():
        colour = colours.get(name, "tab:grey")
        axes.axhline(mean, color=colour, linestyle="--", label=f"{name} bot ({mean:+.1f})")
        axes.axhspan(mean - half, mean + half, color=colour, alpha=0.12)
    axes.plot(training.games, training.curve, marker="o", color="tab:blue", label="trained policy")
    axes.set_xlabel("training games")
    axes.set_ylabel(f"seat 0's mean score per game ({games} evaluation deals)")
    axes.set_title(
        f"Wizard, {PLAYERS} players, rounds {ROUNDS}: seat 0 against three {OPPONENTS} bots"
    )
    axes.grid(alpha=0.3)
    axes.legend(loc="center right")
    figure.tight_layout()
    path.parent.mkdir(parents=True, exist_ok=True)
    figure.savefig(path)
    plt.close(figure)


def main(argv: Sequence[str] | None = None) -> Training:
    """Train, measure the policy and the baselines on the same deals, plot the curve."""
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--updates", type=int, default=Settings.updates)
    parser.add_argument("--episodes-per-update", type=int, default=Settings.episodes_per_update)
    parser.add_argument("--evaluate-every", type=int, default=Settings.evaluate_every)
    parser.add_argument("--evaluation-games", type=int, default=Settings.evaluation_games)
    parser.add_argument("--final-games", type=int, default=2000)
    parser.add_argument("--seed", type=int, default=Settings.seed)
    parser.add_argument("--plot", type=Path, default=Path("wizard-training.png"))
    arguments = parser.parse_args(argv)
    settings = Settings(
        updates=arguments.updates,
        episodes_per_update=arguments.episodes_per_update,
        evaluate_every=arguments.evaluate_every,
        evaluation_games=arguments.evaluation_games,
        seed=arguments.seed,
    )
    training = train(settings)
    print(f"trained in {training.seconds:.0f} s")
    final = range(EVALUATION_SEEDS, EVALUATION_SEEDS + arguments.final_games)
    results = {
        "trained": evaluate(policy_chooser(training.params), final),
        "random": evaluate(random_chooser(settings.seed), final),
        "easy": evaluate(bot_chooser("easy", settings.seed), final),
    }
    print(f"seat 0's mean score per game over the same {len(final)} deals (95% interval):")
    for name, (scores, illegal) in results.items():
        mean, half = interval(scores)
        print(f"  {name:8} {mean:+6.1f} ± {half:.1f}   illegal actions: {illegal}")
    for baseline in ("random", "easy"):
        gaps = numpy.subtract(results["trained"][0], results[baseline][0])
        mean, half = interval(list(gaps))
        print(f"  trained − {baseline} on the same deal: {mean:+.1f} ± {half:.1f}")
    curve_games = range(EVALUATION_SEEDS, EVALUATION_SEEDS + settings.evaluation_games)
    baselines = {
        name: interval(results[name][0][: len(curve_games)]) for name in ("random", "easy")
    }
    plot(training, baselines, len(curve_games), arguments.plot)
    print(f"learning curve: {arguments.plot}")
    return training


if __name__ == "__main__":
    main()
