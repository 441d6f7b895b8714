"""Fzzzt! observations as tensors (``tapisvert.encoding``).

Layout for P players (``FzzztEncoding(game).describe()`` prints it with offsets); seats are
relative to the observer; a group of cards is 56 flags, one per card; a unit is one of the
10 production units:

- ``phase`` (6): one-hot phase; ``round`` (1): / 10, at most 1; ``auction`` (1): belt slot / 8;
- ``chief``, ``to_act`` (P each): one-hot relative seats;
- ``mechanics`` (P × 4): each seat's mechanic, one-hot;
- ``hand``, ``bid``, ``draw_pile`` (56 each): the observer's own cards there;
- ``hand_sizes`` (P): / 6; ``draw_sizes`` (P): / 56;
- ``bid_made``, ``bid_sizes`` (P each): whether each seat has bid, and how many cards / 6;
- ``discards``, ``known_held``, ``owned`` (P × 56 each): each seat's discard pile, cards known
  to be in its hand, and cards it owns;
- ``units`` (P × 10 × 5): each seat holds the unit, and how many of its placements supply
  each symbol (nut, bolt, gear, oil) / 6;
- ``chits`` (P × 4): each seat's symbol chits by symbol / 4;
- ``placed_this_phase`` (10): the units placed on in this production phase;
- ``belt`` (8 × 58): each slot face down, gone, or its card;
- ``pending_draws`` (P): the cards each seat is still to draw / 6;
- ``conveyor_left`` (1): / 56;
- ``last_card`` (56), ``last_winner`` (P), ``last_bids`` (P × 56): the last auction, revealed;
- ``scores`` (P): / 100, within [-1, 1].

Actions: a bid is a subset of the hand, indexed by the positions of its cards in the sorted
hand (index = the bitmask of positions − 1: 63 indices, a hand holding at most 6 cards);
then every placement of a card or chit on a unit, and done (664 in all).
"""

from __future__ import annotations

from collections import Counter
from typing import cast

from tapisvert.core.game import Action, Observation
from tapisvert.encoding import Encoding, Tensor, scaled, values_of
from tapisvert.games.fzzzt.cards import (
    CARD_COUNT,
    MECHANICS,
    SYMBOL_BITS,
    UNITS,
)
from tapisvert.games.fzzzt.rules import (
    BELT_SIZE,
    BID_BASE,
    DONE,
    GONE,
    HAND_LIMIT,
    HIDDEN,
    MECHANIC_BASE,
    PHASE_NAMES,
    PLACE_BASE,
    FzzztGame,
    FzzztObservation,
    bid_action,
    bid_cards,
    placement_symbols,
)

BIDS = (1 << HAND_LIMIT) - 1
SYMBOLS = len(SYMBOL_BITS)
UNIT_SIZE = 1 + SYMBOLS
SLOT_SIZE = 2 + CARD_COUNT
MANY_ROUNDS = 10
MANY_CHITS = 4
HIGH_SCORE = 100
PHASES = {name: index for index, name in enumerate(PHASE_NAMES)}
MECHANIC_INDEX = {mechanic: index for index, mechanic in enumerate(MECHANICS)}
UNIT_INDEX = {unit: index for index, unit in enumerate(UNITS)}


class FzzztEncoding(Encoding):
    """The tensor of a Fzzzt! observation and the compact space of the seats' decisions."""

    def __init__(self, game: FzzztGame) -> None:
        super().__init__(
            game,
            range(PLACE_BASE, DONE + 1),
            chance_actions=MECHANIC_BASE + len(MECHANICS),
            longest_game=game.longest_game,
            score_bounds=game.score_bounds,
        )
        players = self.players
        cards = CARD_COUNT
        self.phase = self.field("phase", len(PHASE_NAMES), "one-hot phase")
        self.round = self.field("round", 1, "round / 10, at most 1")
        self.auction = self.field("auction", 1, "belt slot of the auction / 8")
        self.chief = self.field("chief", players, "one-hot relative chief mechanic")
        self.to_act = self.field("to_act", players, "one-hot relative seat to act, if a seat")
        self.mechanics = self.field("mechanics", players * len(MECHANICS), "each seat's mechanic")
        self.hand = self.field("hand", cards, "own hand")
        self.bid = self.field("bid", cards, "own sealed bid")
        self.draw_pile = self.field("draw_pile", cards, "own draw pile")
        self.hand_sizes = self.field("hand_sizes", players, "cards in each hand / 6")
        self.draw_sizes = self.field("draw_sizes", players, "cards in each draw pile / 56")
        self.bid_made = self.field("bid_made", players, "whether each seat has bid")
        self.bid_sizes = self.field("bid_sizes", players, "cards in each bid / 6")
        self.discards = self.field("discards", players * cards, "each seat's discard pile")
        self.known_held = self.field("known_held", players * cards, "cards known in each hand")
        self.owned = self.field("owned", players * cards, "cards each seat owns")
        self.units = self.field(
            "units", players * len(UNITS) * UNIT_SIZE, "unit held; supplies by symbol / 6"
        )
        self.chits = self.field("chits", players * SYMBOLS, "each seat's chits by symbol / 4")
        self.placed = self.field("placed_this_phase", len(UNITS), "units placed on this phase")
        self.belt = self.field("belt", BELT_SIZE * SLOT_SIZE, "each slot: hidden, gone, card")
        self.pending_draws = self.field("pending_draws", players, "cards still to draw / 6")
        self.conveyor_left = self.field("conveyor_left", 1, "cards left on the conveyor / 56")
        self.last_card = self.field("last_card", cards, "the card of the last auction")
        self.last_winner = self.field("last_winner", players, "its relative winner")
        self.last_bids = self.field("last_bids", players * cards, "its revealed bids")
        self.scores = self.field("scores", players, "scores / 100")

    @property
    def action_count(self) -> int:
        return BIDS + len(self.actions)

    def action_index(self, observation: Observation, action: Action) -> int:
        if action < BID_BASE:
            return BIDS + super().action_index(observation, action)
        hand = cast(FzzztObservation, observation).hand
        positions = 0
        for card in bid_cards(action):
            if card not in hand[:HAND_LIMIT]:
                raise ValueError(f"{card} is not among the first {HAND_LIMIT} cards of the hand")
            positions |= 1 << hand.index(card)
        if not positions:
            raise ValueError("a bid holds at least one card")
        return positions - 1

    def action_at(self, observation: Observation, index: int) -> Action:
        if index >= BIDS:
            return super().action_at(observation, index - BIDS)
        hand = cast(FzzztObservation, observation).hand
        positions = index + 1
        if positions >> len(hand):
            raise ValueError(f"the bid {index} needs cards the hand does not hold")
        return bid_action([card for place, card in enumerate(hand) if positions >> place & 1])

    def write(self, tensor: Tensor, observation: Observation) -> None:
        seen = cast(FzzztObservation, observation)
        out = values_of(tensor)
        players = self.players
        origin = seen.seat or 0
        cards = CARD_COUNT
        out[self.phase.start + PHASES[seen.phase]] = 1.0
        out[self.round.start] = scaled(seen.round, MANY_ROUNDS)
        out[self.auction.start] = seen.auction / BELT_SIZE
        for field, seat in ((self.chief, seen.chief), (self.to_act, seen.current_player)):
            if 0 <= seat < players:  # a seat, not chance or the end
                out[field.start + (seat - origin) % players] = 1.0
        mechanics_at = self.mechanics.start
        for place, mechanic in enumerate(self.by_seat(seen, seen.mechanics)):
            if mechanic is not None:
                out[mechanics_at + place * len(MECHANICS) + MECHANIC_INDEX[mechanic]] = 1.0
        for field, held in (
            (self.hand, seen.hand),
            (self.bid, seen.bid),
            (self.draw_pile, seen.draw_pile),
        ):
            for card in held:
                out[field.start + card] += 1.0
        for place, size in enumerate(self.by_seat(seen, seen.hand_sizes)):
            out[self.hand_sizes.start + place] = scaled(size, HAND_LIMIT)
        for place, size in enumerate(self.by_seat(seen, seen.draw_sizes)):
            out[self.draw_sizes.start + place] = size / cards
        for place, bid_size in enumerate(self.by_seat(seen, seen.bid_sizes)):
            if bid_size is not None:
                out[self.bid_made.start + place] = 1.0
                out[self.bid_sizes.start + place] = scaled(bid_size, HAND_LIMIT)
        units_at = self.units.start
        for place in range(players):
            seat = (place + origin) % players
            for field, held in (
                (self.discards, seen.discards[seat]),
                (self.known_held, seen.known_held[seat]),
                (self.owned, seen.owned[seat]),
            ):
                start = field.start + place * cards
                for card in held:
                    out[start + card] += 1.0
            chits = Counter(seen.chits[seat])
            for symbol in range(SYMBOLS):
                out[self.chits.start + place * SYMBOLS + symbol] = scaled(chits[symbol], MANY_CHITS)
            for unit, items in seen.units[seat]:
                at = units_at + (place * len(UNITS) + UNIT_INDEX[unit]) * UNIT_SIZE
                out[at] = 1.0
                supplies = [placement_symbols(item) for item in items]
                for symbol, bit in enumerate(SYMBOL_BITS):
                    supplied = sum(1 for each in supplies if each & bit)
                    out[at + 1 + symbol] = scaled(supplied, HAND_LIMIT)
        for unit in seen.placed_this_phase:
            out[self.placed.start + UNIT_INDEX[unit]] = 1.0
        for slot, card in enumerate(seen.belt):
            at = self.belt.start + slot * SLOT_SIZE
            out[at + (0 if card == HIDDEN else 1 if card == GONE else 2 + card)] = 1.0
        wanted = [0] * players
        for seat, cards_wanted in seen.pending_draws:
            wanted[seat] += cards_wanted
        for place, count in enumerate(self.by_seat(seen, wanted)):
            out[self.pending_draws.start + place] = scaled(count, HAND_LIMIT)
        out[self.conveyor_left.start] = seen.conveyor_left / cards
        last = seen.last_auction
        if last is not None:
            out[self.last_card.start + last.card] = 1.0
            if 0 <= last.winner < players:
                out[self.last_winner.start + (last.winner - origin) % players] = 1.0
            for place, bid in enumerate(self.by_seat(seen, last.bids)):
                start = self.last_bids.start + place * cards
                for card in bid or ():
                    out[start + card] += 1.0
        for place, score in enumerate(self.by_seat(seen, seen.scores)):
            out[self.scores.start + place] = scaled(score, HIGH_SCORE)
