"""Small statistics for reports: means with 95% Student t confidence intervals.

The t quantile is computed here, exactly, from the closed form of Student's distribution
for whole degrees of freedom (Abramowitz and Stegun 26.7.3–4), so that a report needs no
scipy and is the same wherever it is made.
"""

from __future__ import annotations

import math
import statistics
from collections.abc import Hashable, Sequence
from dataclasses import dataclass

CONFIDENCE = 0.95


@dataclass(frozen=True)
class Estimate:
    """A mean and its 95% interval over ``count`` independent samples (for the arena, deals)."""

    mean: float
    low: float
    high: float
    count: int


def t_within(t: float, degrees: int) -> float:
    """P(|T| ≤ t) for Student's T with ``degrees`` (a whole number ≥ 1) degrees of freedom."""
    if degrees < 1:
        raise ValueError(f"degrees of freedom must be at least 1, not {degrees}")
    theta = math.atan(t / math.sqrt(degrees))
    cos2 = math.cos(theta) ** 2
    if degrees % 2:
        term, total = 1.0, 0.0
        for k in range(1, (degrees - 1) // 2 + 1):
            total += term
            term *= cos2 * 2 * k / (2 * k + 1)
        sum_part = math.sin(theta) * math.cos(theta) * total if degrees > 1 else 0.0
        return 2 / math.pi * (theta + sum_part)
    term, total = 1.0, 0.0
    for k in range(1, degrees // 2 + 1):
        total += term
        term *= cos2 * (2 * k - 1) / (2 * k)
    return math.sin(theta) * total


def t_quantile(degrees: int, confidence: float = CONFIDENCE) -> float:
    """The ``t`` with P(|T| ≤ t) = ``confidence``: the half-width of an interval in standard
    errors (12.71 for one degree of freedom, 1.96 for very many, at 95%)."""
    low, high = 0.0, 1.0
    while t_within(high, degrees) < confidence:
        high *= 2
    for _ in range(200):
        middle = (low + high) / 2
        if middle in (low, high):
            break
        if t_within(middle, degrees) < confidence:
            low = middle
        else:
            high = middle
    return high


def mean_interval(values: Sequence[float]) -> Estimate:
    """Mean with a 95% t-interval, the values taken as independent samples."""
    count = len(values)
    if count == 0:
        raise ValueError("no values")
    mean = statistics.fmean(values)
    if count == 1:
        return Estimate(mean, mean, mean, 1)
    half = t_quantile(count - 1) * statistics.stdev(values) / math.sqrt(count)
    return Estimate(mean, mean - half, mean + half, count)


def group_means(values: Sequence[float], groups: Sequence[Hashable]) -> list[float]:
    """The mean of the values of each group, groups in order of first appearance."""
    if len(values) != len(groups):
        raise ValueError(f"{len(values)} values for {len(groups)} group labels")
    members: dict[Hashable, list[float]] = {}
    for value, group in zip(values, groups, strict=True):
        members.setdefault(group, []).append(value)
    return [statistics.fmean(items) for items in members.values()]


def grouped_mean_interval(values: Sequence[float], groups: Sequence[Hashable]) -> Estimate:
    """Mean with a 95% t-interval over the groups' means (``count``: the groups).

    The samples of a group are not independent (the rotations of one duplicate deal share
    its cards): the groups are, so the interval is computed on their means.
    """
    return mean_interval(group_means(values, groups))
