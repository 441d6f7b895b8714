"""Maximum bipartite matching (augmenting paths): small exact problems of the games.

Luz checks that hidden cards can still be placed in their slots; Fzzzt! scores the
best assignment of robots to production units.
"""

from __future__ import annotations

from collections.abc import Sequence


def maximum_matching(adjacency: Sequence[Sequence[int]], right_size: int) -> list[int]:
    """For each left node, the right node matched to it (-1 if none), in a maximum matching.

    ``adjacency[left]`` lists the right nodes that ``left`` may take.
    """
    owner = [-1] * right_size
    for left in range(len(adjacency)):
        _augment(left, adjacency, owner, [False] * right_size)
    matched = [-1] * len(adjacency)
    for right, left in enumerate(owner):
        if left >= 0:
            matched[left] = right
    return matched


def _augment(
    left: int, adjacency: Sequence[Sequence[int]], owner: list[int], seen: list[bool]
) -> bool:
    for right in adjacency[left]:
        if seen[right]:
            continue
        seen[right] = True
        if owner[right] < 0 or _augment(owner[right], adjacency, owner, seen):
            owner[right] = left
            return True
    return False


def matching_size(adjacency: Sequence[Sequence[int]], right_size: int) -> int:
    return sum(1 for right in maximum_matching(adjacency, right_size) if right >= 0)
