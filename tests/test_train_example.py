"""The training example (examples/train_wizard.py) runs end to end in a few updates: its loss
stays finite, its curve is drawn, and its policy only picks legal actions."""

from __future__ import annotations

import importlib.util
import math
import sys
from pathlib import Path
from types import ModuleType

import numpy
import pytest

pytestmark = pytest.mark.slow

# found, not imported: importing JAX costs every test process seconds before any test runs
if not all(importlib.util.find_spec(name) for name in ("jax", "optax", "rlax")):
    pytest.skip("the train extra (jax, optax, rlax) is not installed", allow_module_level=True)

EXAMPLE = Path(__file__).parent.parent / "examples" / "train_wizard.py"


@pytest.fixture(scope="module")
def example() -> ModuleType:
    spec = importlib.util.spec_from_file_location("train_wizard", EXAMPLE)
    assert spec is not None and spec.loader is not None
    module = importlib.util.module_from_spec(spec)
    sys.modules[spec.name] = module
    spec.loader.exec_module(module)
    return module


def test_a_few_updates_keep_the_loss_finite_and_draw_the_curve(
    example: ModuleType, tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    path = tmp_path / "curve.png"
    training = example.main(
        [
            *("--updates", "2", "--episodes-per-update", "8", "--evaluate-every", "1"),
            *("--evaluation-games", "4", "--final-games", "4", "--plot", str(path)),
        ]
    )
    assert len(training.losses) == 2 * example.Settings.epochs
    assert all(math.isfinite(value) for value in training.losses)
    assert training.games == [0, 8, 16]
    assert len(training.curve) == 3
    assert path.read_bytes().startswith(b"\x89PNG")
    printed = capsys.readouterr().out
    assert printed.count("illegal actions: 0") == 3  # trained, random and easy


def test_the_policy_picks_only_legal_actions(example: ModuleType) -> None:
    key = example.jax.random.PRNGKey(1)
    env = example.make_env()
    encoding = env.table.encoding
    params = example.init_params(key, encoding.size, encoding.action_count, 16)
    # Large random weights: without the mask the favourite action would often be illegal.
    params = {name: value * 50 for name, value in params.items()}
    chosen = example.policy_chooser(params)
    checked = 0

    def checking(env: object, observation: dict[str, numpy.ndarray]) -> int:
        nonlocal checked
        action = chosen(env, observation)
        assert observation["action_mask"][action] == 1
        checked += 1
        return action

    scores, illegal = example.evaluate(checking, range(5))
    assert illegal == 0
    assert len(scores) == 5
    assert checked >= 5 * 20  # five bids and fifteen cards per game


def test_the_baselines_play_the_same_deals_the_same_way(example: ModuleType) -> None:
    deals = range(example.EVALUATION_SEEDS, example.EVALUATION_SEEDS + 6)
    first, illegal = example.evaluate(example.bot_chooser("easy", 3), deals)
    again, _ = example.evaluate(example.bot_chooser("easy", 3), deals)
    assert first == again
    assert illegal == 0
    shuffled, _ = example.evaluate(example.random_chooser(3), deals)
    assert shuffled != first
