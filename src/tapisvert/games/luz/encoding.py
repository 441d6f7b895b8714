"""Luz observations as tensors (``tapisvert.encoding``).

Layout for P players (``LuzEncoding(game).describe()`` prints it with offsets); seats are
relative to the observer, a hand is its ten slots in deal order, a card one of 5 colours ×
12 values (60):

- ``phase`` (5): one-hot of first, deal, bet, play, end; ``deal`` (5): one-hot deals finished;
- ``first_player``, ``to_act``, ``leader`` (P each): one-hot relative seats;
- ``colours`` (P × 10 × 5): the colour of every held slot (a played slot is all zeros);
- ``values`` (P × 10 × 12): the value of every slot the observer sees — the others' held
  cards, never the observer's own;
- ``knowledge`` (10 × 12): the values each of the observer's own held slots may still have
  (1 for each possible value), as the rules deduce them from what the observer saw;
- ``bet_made``, ``bets``, ``safety`` (P each): whether each seat bet, its bet / 10, its
  safety bead;
- ``tricks_won`` (P): tricks / 10;
- ``trick`` (P × 60): the card each seat put on the current trick;
- ``played`` (60): the cards of the deal's finished tricks;
- ``scores`` (P): totals / 200, the most a game can lose (within [-1, 1]).

Actions: the bets (bet 0–10, with or without the safety bead) and the plays of a slot,
whose ids are compact already (32 in all). The first player is chance, not a decision.
"""

from __future__ import annotations

from typing import cast

from tapisvert.core.game import Observation
from tapisvert.encoding import Encoding, Tensor, scaled, values_of
from tapisvert.games.luz.cards import (
    COLOUR_COUNT,
    DEALS,
    FAIL_POINTS_PER_TRICK,
    HAND_SIZE,
    MAX_VALUE,
    SUCCESS_POINTS,
)
from tapisvert.games.luz.rules import (
    ACTION_COUNT,
    BET_BASE,
    CARD_IDS,
    FIRST_BASE,
    MAX_BET,
    PHASE_NAMES,
    LuzGame,
    LuzObservation,
)

WORST_TOTAL = FAIL_POINTS_PER_TRICK * HAND_SIZE * DEALS
PHASES = {name: index for index, name in enumerate(PHASE_NAMES)}


class LuzEncoding(Encoding):
    """The tensor of a Luz observation and the compact space of the seats' decisions."""

    def __init__(self, game: LuzGame) -> None:
        super().__init__(
            game,
            range(BET_BASE, ACTION_COUNT),
            chance_actions=FIRST_BASE + game.players,
            # Per deal: every bet and every card of every hand.
            longest_game=game.deals * game.players * (game.hand_size + 1),
            score_bounds=(-WORST_TOTAL, sum(map(max, SUCCESS_POINTS[0], SUCCESS_POINTS[1]))),
        )
        players = self.players
        slots = players * HAND_SIZE
        self.phase = self.field("phase", len(PHASE_NAMES), "one-hot phase")
        self.deal = self.field("deal", DEALS + 1, "one-hot deals finished")
        self.first_player = self.field("first_player", players, "one-hot relative first player")
        self.to_act = self.field("to_act", players, "one-hot relative seat to act, if a seat")
        self.leader = self.field("leader", players, "one-hot relative leader of the trick")
        self.colours = self.field("colours", slots * COLOUR_COUNT, "colour of each held slot")
        self.values = self.field("values", slots * MAX_VALUE, "value of each slot seen")
        self.knowledge = self.field(
            "knowledge", HAND_SIZE * MAX_VALUE, "values each own held slot may still have"
        )
        self.bet_made = self.field("bet_made", players, "whether each seat has bet")
        self.bets = self.field("bets", players, "each seat's bet / 10")
        self.safety = self.field("safety", players, "each seat's safety bead")
        self.tricks_won = self.field("tricks_won", players, "tricks taken / 10")
        self.trick = self.field("trick", players * CARD_IDS, "the card each seat put on the trick")
        self.played = self.field("played", CARD_IDS, "cards of the deal's finished tricks")
        self.scores = self.field("scores", players, "totals / 200")

    def write(self, tensor: Tensor, observation: Observation) -> None:
        seen = cast(LuzObservation, observation)
        out = values_of(tensor)
        players = self.players
        origin = seen.seat or 0
        out[self.phase.start + PHASES[seen.phase]] = 1.0
        out[self.deal.start + seen.deal_index] = 1.0
        for field, seat in (
            (self.first_player, seen.first_player),
            (self.to_act, seen.current_player),
            (self.leader, seen.leader),
        ):
            if 0 <= seat < players:  # a seat, not chance or the end
                out[field.start + (seat - origin) % players] = 1.0
        colours_at, values_at = self.colours.start, self.values.start - 1
        hands = zip(self.by_seat(seen, seen.colours), self.by_seat(seen, seen.values), strict=True)
        for place, (colours, values) in enumerate(hands):
            for slot, (colour, value) in enumerate(zip(colours, values, strict=True)):
                at = place * HAND_SIZE + slot
                if colour >= 0:
                    out[colours_at + at * COLOUR_COUNT + colour] = 1.0
                if value is not None:
                    out[values_at + at * MAX_VALUE + value] = 1.0
        knowledge_at = self.knowledge.start - 1
        for slot, possible in enumerate(seen.knowledge):
            for value in possible or ():
                out[knowledge_at + slot * MAX_VALUE + value] = 1.0
        for place, bet in enumerate(self.by_seat(seen, seen.bets)):
            if bet is not None:
                out[self.bet_made.start + place] = 1.0
                out[self.bets.start + place] = bet[0] / MAX_BET
                out[self.safety.start + place] = bet[1]
        for place, taken in enumerate(self.by_seat(seen, seen.tricks_won)):
            out[self.tricks_won.start + place] = taken / HAND_SIZE
        for play in seen.trick:
            out[self.trick.start + (play.seat - origin) % players * CARD_IDS + play.card] = 1.0
        for trick in seen.completed_tricks:
            for play in trick.plays:
                out[self.played.start + play.card] = 1.0
        for place, score in enumerate(self.by_seat(seen, seen.scores)):
            out[self.scores.start + place] = scaled(score, WORST_TOTAL)
