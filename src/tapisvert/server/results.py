"""How a game ends: each seat's standing for the ratings, its moves counted, the final
words of its notice, and the ratings as shown."""

from __future__ import annotations

from collections.abc import Mapping, Sequence

from tapisvert.core.game import State
from tapisvert.server.protocol import SeatRating
from tapisvert.server.ratings import Standing, places
from tapisvert.server.seats import Seat
from tapisvert.server.storage import LoggedAction, SeatResult


def counted(
    moves: list[int],
    stand_ins: list[int],
    entries: Sequence[LoggedAction],
    taken_back: bool = False,
) -> tuple[list[int], list[int]]:
    """Each seat's moves and stand-in moves, with ``entries`` counted in (or out, when they
    were ``taken_back``)."""
    moves, stand_ins = list(moves), list(stand_ins)
    step = -1 if taken_back else 1
    for entry in entries:
        if entry.actor >= 0:
            moves[entry.actor] += step
            stand_ins[entry.actor] += step * entry.stand_in
    return moves, stand_ins


def final_standings(
    seats: list[Seat],
    state: State,
    moves: list[int],
    stand_ins: list[int],
    rated: bool,
    bot_accounts: Mapping[str, int],
) -> list[Standing]:
    """Each seat at the end: its account, points, whether it won, whether a bot played
    most of its moves or the person lost on time (absent: last, and no win). A bot
    level's account is rated once per game, by its best seat."""
    scores, winners = state.returns(), state.winners()
    absent = [
        seat.kind == "human" and (seat.forfeited or 2 * stand_ins[index] > moves[index])
        for index, seat in enumerate(seats)
    ]
    ranks = places(scores, winners, absent)
    accounts = [_account(seat, bot_accounts) for seat in seats]
    best: dict[int, int] = {}
    for index in sorted(range(len(seats)), key=lambda index: ranks[index]):
        account = accounts[index]
        if account is not None:
            best.setdefault(account, index)
    return [
        Standing(
            seat=index,
            account=accounts[index],
            score=scores[index],
            won=index in winners,
            absent=absent[index],
            rated=rated and index in best.values(),
        )
        for index in range(len(seats))
    ]


def _account(seat: Seat, bot_accounts: Mapping[str, int]) -> int | None:
    if seat.kind == "bot" and seat.level is not None:
        return bot_accounts.get(seat.level)
    return seat.user_id


def final_words(seats: list[Seat], state: State) -> tuple[str, str]:
    """The final scores by name ("Ana 80, Bob 60") and the winners as the game decides
    them (its tie-breaks included), for the table's notice."""
    names = [seat.name or f"P{index + 1}" for index, seat in enumerate(seats)]
    scored = zip(names, state.returns(), strict=True)
    return (
        ", ".join(f"{name} {points:g}" for name, points in scored),
        ", ".join(names[seat] for seat in state.winners()),
    )


def seat_ratings(results: list[SeatResult]) -> list[SeatRating | None]:
    """Each seat's rating before and after the game, as shown; ``None`` where unrated."""
    return [
        None
        if result.before is None or result.after is None
        else SeatRating(before=result.before.shown, after=result.after.shown)
        for result in results
    ]
