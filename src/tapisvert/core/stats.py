"""Small statistics for reports: means with 95% confidence intervals."""

from __future__ import annotations

import math
import statistics
from collections.abc import Sequence
from dataclasses import dataclass

Z_95 = statistics.NormalDist().inv_cdf(0.975)


@dataclass(frozen=True)
class Estimate:
    mean: float
    low: float
    high: float
    count: int


def mean_interval(values: Sequence[float]) -> Estimate:
    """Mean with a normal-approximation 95% interval (exact enough past a few dozen samples)."""
    count = len(values)
    if count == 0:
        raise ValueError("no values")
    mean = statistics.fmean(values)
    if count == 1:
        return Estimate(mean, mean, mean, 1)
    half = Z_95 * statistics.stdev(values) / math.sqrt(count)
    return Estimate(mean, mean - half, mean + half, count)
