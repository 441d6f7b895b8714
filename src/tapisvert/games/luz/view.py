"""Luz at the terminal: your own cards as colour backs with the values still possible,
the others' cards with their values."""

from __future__ import annotations

from rich.console import Group, RenderableType
from rich.table import Table
from rich.text import Text

from tapisvert.cli.views.common import heading, seat_name
from tapisvert.core.game import TERMINAL, Observation
from tapisvert.games.luz.cards import COLOURS, card_to_string, colour_of
from tapisvert.games.luz.rules import LuzObservation
from tapisvert.i18n import translate

COLOUR_STYLES = ("bold red", "bold yellow", "bold green", "bold blue", "bold magenta")


def card_text(card: int) -> Text:
    return Text(card_to_string(card), style=COLOUR_STYLES[colour_of(card)])


def slot_text(colour: int, value: int | None, possible: tuple[int, ...] | None) -> Text:
    if value is not None:
        return Text(f"{COLOURS[colour]}{value}", style=COLOUR_STYLES[colour])
    if possible:
        shown = "/".join(map(str, possible))
        return Text(f"{COLOURS[colour]}[{shown}]", style=COLOUR_STYLES[colour])
    return Text(f"{COLOURS[colour]}?", style=COLOUR_STYLES[colour])


def render(observation: Observation, language: str) -> RenderableType:
    """The deal under way; once the game is over, the last deal's bets and tricks by the
    final scores (the deal and trick the state moved on to are none)."""
    assert isinstance(observation, LuzObservation)
    viewer = observation.seat
    over = observation.current_player == TERMINAL
    last = observation.past_deals[-1] if over and observation.past_deals else None
    bets = observation.bets if last is None else last.bets
    tricks = observation.tricks_won if last is None else last.tricks
    parts: list[RenderableType] = []
    if not over:
        parts.append(
            heading(
                "cli.luz.deal",
                language,
                number=observation.deal_index + 1,
                deals=observation.deals,
                first=seat_name(observation.first_player, viewer, language),
            )
        )
    parts.append(Text(translate("cli.luz.provisional", language), style="dim"))
    table = Table(show_edge=False, box=None, pad_edge=False)
    for key in ("player", "bets", "tricks", "score"):
        table.add_column(translate(f"cli.luz.{key}", language))
    table.add_column(translate("cli.luz.hand", language))
    for seat in range(observation.players):
        bet = bets[seat]
        marker = "▶ " if seat == observation.current_player else "  "
        hand = Text(" ")
        cells = []
        for slot, (colour, value) in enumerate(
            zip(observation.colours[seat], observation.values[seat], strict=True)
        ):
            if colour < 0:
                continue
            possible = observation.knowledge[slot] if seat == viewer else None
            label = Text(f"{slot}:", style="dim") if seat == viewer else Text("")
            cells.append(label + slot_text(colour, value, possible))
        hand = Text(" ").join(cells)
        table.add_row(
            marker + seat_name(seat, viewer, language),
            "—" if bet is None else f"{bet[0]}{'+' if bet[1] else ''}",
            str(tricks[seat]),
            str(observation.scores[seat]),
            hand,
        )
    parts.append(table)
    if over:
        return Group(*parts)
    leader = seat_name(observation.leader, viewer, language)
    if observation.trick:
        played = Text(" ").join(
            Text(seat_name(play.seat, viewer, language) + "=") + card_text(play.card)
            for play in observation.trick
        )
        parts.append(Text(translate("cli.luz.trick", language, leader=leader) + ": ") + played)
    else:
        parts.append(Text(translate("cli.luz.empty_trick", language, leader=leader)))
    return Group(*parts)


def news(before: Observation | None, after: Observation, language: str) -> list[RenderableType]:
    """Tricks taken and deals scored since the last look."""
    assert isinstance(after, LuzObservation)
    viewer = after.seat
    seen_deals, seen_tricks = 0, 0
    if isinstance(before, LuzObservation):
        seen_deals, seen_tricks = len(before.past_deals), len(before.completed_tricks)
    finished = [summary.played for summary in after.past_deals[seen_deals:]]
    tricks = [*(trick for played in finished for trick in played), *after.completed_tricks]
    news: list[RenderableType] = []
    for trick in tricks[seen_tricks:]:
        winner = seat_name(trick.winner, viewer, language)
        news.append(
            Text(translate("cli.luz.trick_won", language, winner=winner, cards=""))
            + Text(" ").join(card_text(play.card) for play in trick.plays)
        )
    for summary in after.past_deals[seen_deals:]:
        table = Table(title=translate("cli.round_over", language, number=summary.deal_number))
        for key in ("player", "bets", "tricks", "round_points", "score"):
            table.add_column(translate(f"cli.luz.{key}", language))
        index = after.past_deals.index(summary)
        for seat in range(after.players):
            total = sum(past.points[seat] for past in after.past_deals[: index + 1])
            bet, safety = summary.bets[seat]
            table.add_row(
                seat_name(seat, viewer, language),
                f"{bet}{'+' if safety else ''}",
                str(summary.tricks[seat]),
                f"{summary.points[seat]:+d}",
                str(total),
            )
        news.append(table)
    return news
