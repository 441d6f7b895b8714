"""Abluxxen at the terminal: stacks, display, your hand, what is being stolen."""

from __future__ import annotations

from rich.console import Group, RenderableType
from rich.table import Table
from rich.text import Text

from tapisvert.cli.views.common import heading, seat_name
from tapisvert.core.game import TERMINAL, Observation
from tapisvert.games.abluxxen.cards import JOKER, kind_to_string, set_to_string
from tapisvert.games.abluxxen.rules import AbluxxenObservation
from tapisvert.i18n import translate


def cards_text(cards: tuple[int, ...] | list[int]) -> Text:
    if not cards:
        return Text("—")
    return Text(" ").join(
        Text(kind_to_string(card), style="bold magenta" if card == JOKER else "bold")
        for card in cards
    )


def render(observation: Observation, language: str) -> RenderableType:
    """The turn under way; once the game is over, the table as it ended, nobody's turn."""
    assert isinstance(observation, AbluxxenObservation)
    viewer = observation.seat
    over = observation.current_player == TERMINAL
    parts: list[RenderableType] = []
    if not over:
        active = seat_name(observation.active, viewer, language)
        parts.append(heading("cli.abluxxen.turn", language, active=active))
    series = observation.games != 1
    if series:
        parts.append(Text(series_line(observation, language)))
    display = Text(translate("cli.abluxxen.display", language) + ": ")
    display += Text("  ").join(
        Text(f"{index}:") + cards_text(entry) for index, entry in enumerate(observation.display, 1)
    )
    parts.append(display)
    parts.append(
        Text(
            translate(
                "cli.abluxxen.pile",
                language,
                count=observation.pile_size,
                discarded=len(observation.discard),
            )
        )
    )
    if observation.dummy:
        parts.append(
            Text(translate("cli.abluxxen.dummy", language) + ": ") + cards_text(observation.dummy)
        )
    table = Table(show_edge=False, box=None, pad_edge=False)
    columns = ("player", "cards", "known", "score", *(("total",) if series else ()), "stack")
    for key in columns:
        table.add_column(translate(f"cli.abluxxen.{key}", language))
    for seat in range(observation.players):
        marker = "▶ " if seat == observation.current_player else "  "
        table.add_row(
            marker + seat_name(seat, viewer, language),
            str(observation.hand_sizes[seat]),
            cards_text(observation.known_in_hand[seat]) if seat != viewer else Text(""),
            str(observation.game_scores[seat]),
            *((str(observation.scores[seat]),) if series else ()),
            " ".join(set_to_string(played) for played in observation.stacks[seat]) or "—",
        )
    parts.append(table)
    if not over and observation.in_play and observation.victim is not None:
        parts.append(
            Text(
                translate(
                    "cli.abluxxen.in_play",
                    language,
                    victim=seat_name(observation.victim, viewer, language),
                    cards=" ".join(map(kind_to_string, observation.in_play)),
                )
            )
        )
    if viewer is not None:
        parts.append(
            Text(translate("cli.abluxxen.hand", language) + ": ") + cards_text(observation.hand)
        )
    return Group(*parts)


def series_line(observation: AbluxxenObservation, language: str) -> str:
    if observation.games is None:
        return translate(
            "abluxxen.game_to_target",
            language,
            number=observation.game_number,
            target=observation.series_target,
        )
    return translate(
        "abluxxen.game_of", language, number=observation.game_number, games=observation.games
    )


def news(before: Observation | None, after: Observation, language: str) -> list[RenderableType]:
    """The sets played since the last look."""
    assert isinstance(after, AbluxxenObservation)
    if not isinstance(before, AbluxxenObservation):
        return []
    news: list[RenderableType] = []
    for seat in range(after.players):
        old, new = before.stacks[seat], after.stacks[seat]
        if len(new) > len(old) or (new and old and new[-1] != old[-1] and len(new) == len(old)):
            news.append(
                Text(
                    translate(
                        "cli.abluxxen.played",
                        language,
                        player=seat_name(seat, after.seat, language),
                        set=set_to_string(new[-1]),
                    )
                )
            )
    return news
