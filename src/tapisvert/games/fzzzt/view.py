"""Fzzzt! at the terminal: the belt, your hand and piles, everyone's units and sizes."""

from __future__ import annotations

from rich.console import Group, RenderableType
from rich.table import Table
from rich.text import Text

from tapisvert.cli.views.common import heading, seat_name
from tapisvert.core.game import TERMINAL, Observation
from tapisvert.games.fzzzt.cards import CARDS, Kind, name, symbol_text
from tapisvert.games.fzzzt.rules import GONE, HIDDEN, FzzztObservation, Placement
from tapisvert.i18n import translate

KIND_STYLES = {
    Kind.MECHANIC: "dim",
    Kind.STARTER: "cyan",
    Kind.ROBOT: "bold cyan",
    Kind.UPGRADE: "bold magenta",
    Kind.FZZZT: "bold red",
    Kind.UNIT: "bold green",
}


def card_text(card: int) -> Text:
    spec = CARDS[card]
    if spec.kind == Kind.UNIT:
        detail = f"({symbol_text(spec.symbols)} {spec.value})"
    elif spec.kind == Kind.MECHANIC:
        detail = ""
    else:
        detail = f"({spec.zap}z {spec.vp}vp {symbol_text(spec.symbols)})"
    return Text(name(card) + detail, style=KIND_STYLES[spec.kind])


def cards_text(cards: tuple[int, ...] | list[int]) -> Text:
    return Text(" ").join(card_text(card) for card in cards) if cards else Text("—")


def placement_text(item: Placement) -> str:
    return f"chit:{'NBGO'[item.chit]}" if item.card < 0 else name(item.card)


def belt_text(observation: FzzztObservation, language: str) -> Text:
    shown: list[Text] = []
    for slot, card in enumerate(observation.belt):
        if card == GONE:
            continue
        front = Text("▶", style="bold") if slot == observation.auction else Text("")
        shown.append(front + (Text("▒▒", style="dim") if card == HIDDEN else card_text(card)))
    return Text(translate("cli.fzzzt.belt", language) + ": ") + Text(" ").join(shown)


def render(observation: Observation, language: str) -> RenderableType:
    """The auction under way; once the game is over, what each seat ended with (no round,
    auction or belt any more)."""
    assert isinstance(observation, FzzztObservation)
    viewer = observation.seat
    over = observation.current_player == TERMINAL
    parts: list[RenderableType] = []
    if not over:
        parts.append(
            heading(
                "cli.fzzzt.round",
                language,
                round=observation.round,
                auction=min(observation.auction + 1, 8),
                chief=seat_name(observation.chief, viewer, language),
            )
        )
    parts.append(Text(translate("cli.fzzzt.provisional", language), style="dim"))
    if not over:
        parts.append(belt_text(observation, language))
        parts.append(
            Text(translate("cli.fzzzt.conveyor", language, count=observation.conveyor_left))
        )
    table = Table(show_edge=False, box=None, pad_edge=False)
    for key in ("player", "cards", "draw", "bid", "score", "units"):
        table.add_column(translate(f"cli.fzzzt.{key}", language))
    for seat in range(observation.players):
        bid = observation.bid_sizes[seat]
        units = " ".join(
            f"{name(unit)}[{','.join(placement_text(item) for item in items)}]"
            for unit, items in observation.units[seat]
        )
        marker = "▶ " if seat == observation.current_player else "  "
        table.add_row(
            marker + seat_name(seat, viewer, language),
            str(observation.hand_sizes[seat]),
            str(observation.draw_sizes[seat]),
            "—" if bid is None else str(bid),
            str(observation.scores[seat]),
            units or "—",
        )
    parts.append(table)
    if viewer is not None:
        parts.append(
            Text(translate("cli.fzzzt.hand", language) + ": ") + cards_text(observation.hand)
        )
        parts.append(
            Text(translate("cli.fzzzt.draw_pile", language) + ": ")
            + cards_text(observation.draw_pile)
        )
    return Group(*parts)


def news(before: Observation | None, after: Observation, language: str) -> list[RenderableType]:
    """The result of the last auction, when it is new."""
    assert isinstance(after, FzzztObservation)
    last = after.last_auction
    if last is None or (isinstance(before, FzzztObservation) and before.last_auction == last):
        return []
    bids = ", ".join(
        f"{seat_name(seat, after.seat, language)}: {' '.join(map(name, bid))}"
        for seat, bid in enumerate(last.bids)
        if bid is not None
    )
    winner = seat_name(last.winner, after.seat, language)
    return [
        Text(
            translate(
                "cli.fzzzt.auction_won", language, winner=winner, card=name(last.card), bids=bids
            )
        )
    ]
