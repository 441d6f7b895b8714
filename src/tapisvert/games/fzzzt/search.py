"""What the search bots need to know about Fzzzt!: which bids are worth weighing, and what a
production unit not yet completed is worth while rounds remain.

A hand of six cards has 63 bids, most of them the same strength; the search weighs one bid
per strength, the one with the fewest cards (the others stay playable this round). And a
round's running score counts a unit that is not yet complete at minus its value, although
one robot a round can still go on it: a search that stops at the end of the round would
never buy a unit. ``forecast`` counts each unit at what the seat's own robots can make of
it in the production phases left.
"""

from __future__ import annotations

from tapisvert.core.game import Action, State
from tapisvert.games.fzzzt.cards import CARD_POINTS, CARDS, completed_sets, is_robot, strength
from tapisvert.games.fzzzt.rules import (
    BID_BASE,
    PHASE_END,
    PHASE_PRODUCTION,
    FzzztState,
    bid_cards,
    placement_symbols,
)


def bid_candidates(legal: list[Action]) -> list[Action]:
    """One bid per strength, the one with the fewest cards; other decisions unchanged."""
    if not legal or legal[0] < BID_BASE:
        return legal
    cheapest: dict[int, tuple[int, Action]] = {}
    for action in legal:
        cards = bid_cards(action)
        key = strength(cards)
        if key not in cheapest or len(cards) < cheapest[key][0]:
            cheapest[key] = (len(cards), action)
    return sorted(action for _, action in cheapest.values())


def forecast(state: State) -> list[float]:
    """Each seat's points, a unit counted at the sets its owner's robots can still complete
    on it: one placement per unit in each production phase left, the most useful robot
    first, a robot used on one unit only."""
    assert isinstance(state, FzzztState)
    if state._phase == PHASE_END:
        return state.returns()
    phases_left = state._game.rounds - state._round + 1
    if state._phase == PHASE_PRODUCTION:
        phases_left -= 1
    return [
        float(_forecast_seat(state, seat, max(phases_left, 0))) for seat in range(state._players)
    ]


def _forecast_seat(state: FzzztState, seat: int, phases_left: int) -> int:
    owned = state.owned(seat)
    points = sum(CARD_POINTS[card] for card in owned)
    spare = [CARDS[card].symbols for card in owned if is_robot(card)]
    units = sorted(state._units[seat], key=lambda item: -CARDS[item[0]].value)
    for unit, items in units:
        points += sum(CARD_POINTS[item.card] for item in items if item.card >= 0)
        supplies = [placement_symbols(item) for item in items]
        needed = CARDS[unit].symbols
        for _ in range(phases_left):
            useful = [offered for offered in spare if offered & needed]
            if not useful:
                break
            best = max(
                useful,
                key=lambda offered: (
                    completed_sets(unit, [*supplies, offered]),
                    bin(offered & needed & ~_covered(supplies)).count("1"),
                ),
            )
            supplies.append(best)
            spare.remove(best)
        sets = completed_sets(unit, supplies)
        points += sets * CARDS[unit].value if sets else -CARDS[unit].value
    return points


def _covered(supplies: list[int]) -> int:
    covered = 0
    for offered in supplies:
        covered |= offered
    return covered
