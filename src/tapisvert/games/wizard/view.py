"""Wizard at the terminal: the table as one seat sees it."""

from __future__ import annotations

from rich.console import Group, RenderableType
from rich.table import Table
from rich.text import Text

from tapisvert.cli.views.common import heading, seat_name
from tapisvert.core.game import TERMINAL, Observation
from tapisvert.games.wizard.cards import JESTER, NO_TRUMP, SUIT_CARDS, WIZARD, card_to_string
from tapisvert.games.wizard.cards import suit_name as wizard_suit_name
from tapisvert.games.wizard.rules import WizardObservation
from tapisvert.i18n import translate

CARD_STYLES = ("bold blue", "bold red", "bold green", "bold yellow")


def card_text(card: int) -> Text:
    if card == WIZARD:
        return Text("W", style="bold magenta")
    if card == JESTER:
        return Text("J", style="dim")
    return Text(card_to_string(card), style=CARD_STYLES[card // 13] if card < SUIT_CARDS else "")


def cards_text(cards: tuple[int, ...] | list[int]) -> Text:
    return Text(" ").join(card_text(card) for card in cards) if cards else Text("—")


def trump_text(observation: WizardObservation, language: str) -> Text:
    if observation.trump is None:
        if observation.trump_card is None:
            return Text("—")
        return Text(translate("cli.wizard.trump_undecided", language))
    if observation.trump == NO_TRUMP:
        shown = Text(translate("wizard.no_trump", language))
    else:
        shown = Text(
            wizard_suit_name(observation.trump).render(language),
            style=CARD_STYLES[observation.trump],
        )
    if observation.trump_card is not None:
        turned = translate(
            "cli.wizard.trump_card", language, card=card_to_string(observation.trump_card)
        )
        shown.append(f" ({turned})")
    return shown


def render(observation: Observation, language: str) -> RenderableType:
    """The round under way; once the game is over, the last round's bids and tricks by the
    final scores alone (the round, trump and trick the state moved on to are none)."""
    assert isinstance(observation, WizardObservation)
    viewer = observation.seat
    over = observation.current_player == TERMINAL
    last = observation.past_rounds[-1] if over and observation.past_rounds else None
    bids = observation.bids if last is None else last.bids
    tricks = observation.tricks_won if last is None else last.tricks
    table = Table(show_edge=False, box=None, pad_edge=False)
    for column in ("player", "cards", "bids", "tricks", "score"):
        table.add_column(
            translate(f"cli.wizard.{column}", language),
            justify="left" if column == "player" else "right",
        )
    for seat in range(observation.players):
        bid = bids[seat]
        marker = "▶ " if seat == observation.current_player else "  "
        table.add_row(
            marker + seat_name(seat, viewer, language),
            str(observation.hand_sizes[seat]),
            "—" if bid is None else str(bid),
            str(tricks[seat]),
            str(observation.scores[seat]),
        )
    if over:
        return table
    header = heading(
        "cli.wizard.round",
        language,
        number=observation.round_index + 1,
        rounds=observation.rounds,
        cards=observation.round_number,
        dealer=seat_name(observation.dealer, viewer, language),
    )
    trump = Text(translate("cli.wizard.trump", language, trump="")) + trump_text(
        observation, language
    )
    if observation.trick:
        played = Text(" ").join(
            Text(seat_name((observation.leader + index) % observation.players, viewer, language))
            + Text("=")
            + card_text(card)
            for index, card in enumerate(observation.trick)
        )
        leader = seat_name(observation.leader, viewer, language)
        trick = Text(translate("cli.wizard.trick", language, leader=leader) + ": ") + played
    else:
        trick = Text(
            translate(
                "cli.wizard.empty_trick",
                language,
                leader=seat_name(observation.leader, viewer, language),
            )
        )
    parts: list[RenderableType] = [header, trump, table, trick]
    if viewer is not None:
        parts.append(
            Text(translate("cli.wizard.hand", language) + ": ") + cards_text(observation.hand)
        )
    return Group(*parts)


def news(before: Observation | None, after: Observation, language: str) -> list[RenderableType]:
    """What happened between two observations of the same seat: tricks taken, rounds scored."""
    assert isinstance(after, WizardObservation)
    viewer = after.seat
    news: list[RenderableType] = []
    seen_rounds, seen_tricks = 0, 0
    if isinstance(before, WizardObservation):
        seen_rounds, seen_tricks = len(before.past_rounds), len(before.completed_tricks)
    finished = [summary.played for summary in after.past_rounds[seen_rounds:]]
    if len(after.past_rounds) == seen_rounds:
        finished = []
    tricks = [*(trick for played in finished for trick in played), *after.completed_tricks]
    for trick in tricks[seen_tricks:]:
        winner = seat_name(trick.winner, viewer, language)
        news.append(
            Text(translate("cli.wizard.trick_won", language, winner=winner, cards=""))
            + cards_text(trick.cards)
        )
    for summary in after.past_rounds[seen_rounds:]:
        table = Table(title=translate("cli.round_over", language, number=len(after.past_rounds)))
        for column in ("player", "bids", "tricks", "round_points", "score"):
            table.add_column(translate(f"cli.wizard.{column}", language))
        index = after.past_rounds.index(summary)
        totals = [
            sum(past.points[seat] for past in after.past_rounds[: index + 1])
            for seat in range(after.players)
        ]
        for seat in range(after.players):
            table.add_row(
                seat_name(seat, viewer, language),
                str(summary.bids[seat]),
                str(summary.tricks[seat]),
                f"{summary.points[seat]:+d}",
                str(totals[seat]),
            )
        news.append(table)
    return news
