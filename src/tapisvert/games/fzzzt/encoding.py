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

``write_state`` reads from the state what the seat's observation would hold (its own hand,
bid and draw pile, no other's), no more, and writes it through the same code as ``write``:
the same values, without building the observation; so does ``write_legal``, which reads a
bid's index from the hand of the seat to act.

Actions: a bid is a subset of the hand, indexed by the positions of its cards in the sorted
hand (index = the bitmask of positions − 1: 63 indices, a hand holding at most 6 cards);
then every placement of a card or chit on a unit, and done (664 in all).
"""

from __future__ import annotations

from collections import Counter
from collections.abc import Iterable, MutableSequence, Sequence
from typing import Final, cast

from librt.vecs import vec
from mypy_extensions import i32

from tapisvert.core.cache import IdentityCache
from tapisvert.core.game import Action, Observation, Seat, State
from tapisvert.encoding import (
    BLOCKS_KEPT,
    ONE_BITS,
    UNCHANGED,
    Encoding,
    Template,
    Tensor,
    block_cache,
    scaled,
    seat_places,
)
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
    HAND_LIMIT,
    HIDDEN,
    MECHANIC_BASE,
    PHASE_NAMES,
    PLACE_BASE,
    AuctionResult,
    FzzztGame,
    FzzztObservation,
    FzzztState,
    Units,
    bid_action,
    bid_cards,
    placement_symbols,
)

BIDS: Final = (1 << HAND_LIMIT) - 1
SYMBOLS: Final = len(SYMBOL_BITS)
UNIT_SIZE: Final = 1 + SYMBOLS
UNITS_SIZE: Final = len(UNITS) * UNIT_SIZE
SLOT_SIZE: Final = 2 + CARD_COUNT
MANY_ROUNDS: Final = 10
MANY_CHITS: Final = 4
HIGH_SCORE: Final = 100
PHASES: Final = {name: index for index, name in enumerate(PHASE_NAMES)}
PART_MECHANICS: Final = 0
PART_HAND: Final = 1
PART_BID: Final = 2
PART_DRAW_PILE: Final = 3
PART_PLACED: Final = 4
PART_BELT: Final = 5
PART_LAST: Final = 6
PER_SEAT: Final = 7
"""The parts of a template (see ``Template``); from ``PER_SEAT`` on, ``SEAT_PARTS`` per
seat: its owned cards, discard pile, cards known in hand, units and chits."""
SEAT_PARTS: Final = 5
SLOT_AT: Final = (*range(2, SLOT_SIZE), 1, 0)
"""Where a belt slot's flag goes within the slot's run, by its card: a card from 2 on, a
slot whose card is gone (-2) at 1, a face-down one (-1) at 0."""
MECHANIC_INDEX: Final = {mechanic: index for index, mechanic in enumerate(MECHANICS)}
UNIT_INDEX: Final = {unit: index for index, unit in enumerate(UNITS)}


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
        self._places = seat_places(players)
        self._units_blocks = block_cache(UNITS_SIZE, _write_units)
        self._chits_blocks = block_cache(SYMBOLS, _write_chits)
        self._bid_indices = IdentityCache(self._bids_of, size=BLOCKS_KEPT)
        self._belt_runs = ((self.belt.start, SLOT_SIZE, SLOT_AT),)
        self._templates = self.templates(PER_SEAT + SEAT_PARTS * players)

    @property
    def action_count(self) -> int:
        return BIDS + len(self.actions)

    def action_index(self, observation: Observation, action: Action) -> int:
        return self._index_in(cast(FzzztObservation, observation).hand, action)

    def action_at(self, observation: Observation, index: int) -> Action:
        return self._action_in(cast(FzzztObservation, observation).hand, index)

    def legal_indices(self, state: State, legal: Sequence[Action]) -> Sequence[int]:
        """The indices of ``legal``, a bid's read from the hand of the seat to act: where
        the seat may bid every set of its cards (it always may), the first ``len(legal)``
        indices; a placement's, its action less the first placement's, after the bids."""
        if not legal or legal[0] < BID_BASE:  # the production phase's placements and done
            shift = BIDS - PLACE_BASE
            return [action + shift for action in legal]
        hand = cast(FzzztState, state)._hands[state.current_player()]
        if len(hand) <= HAND_LIMIT and len(legal) == (1 << len(hand)) - 1:
            return range(len(legal))
        bids = self._bid_indices(hand)
        return [
            bids[action] if action in bids else self._index_in(hand, action) for action in legal
        ]

    def action_at_state(self, state: State, index: int) -> Action:
        return self._action_in(cast(FzzztState, state)._hands[state.current_player()], index)

    def _bids_of(self, hand: tuple[int, ...]) -> dict[Action, int]:
        """The index of every bid ``hand`` allows (a hand is offered again and again), the
        cards of each set of positions from those of a smaller set."""
        cards = [1 << card for card in hand[:HAND_LIMIT]]
        chosen = [0] * (1 << len(cards))
        for positions in range(1, len(chosen)):
            lowest = positions & -positions
            chosen[positions] = chosen[positions ^ lowest] | cards[lowest.bit_length() - 1]
        return {BID_BASE + chosen[positions]: positions - 1 for positions in range(1, len(chosen))}

    def _index_in(self, hand: tuple[int, ...], action: Action) -> int:
        """The compact index of ``action`` for a seat holding ``hand``."""
        if action < BID_BASE:
            return BIDS + self.index_of(action)
        positions = 0
        for card in bid_cards(action):
            if card not in hand[:HAND_LIMIT]:
                raise ValueError(f"{card} is not among the first {HAND_LIMIT} cards of the hand")
            positions |= 1 << hand.index(card)
        if not positions:
            raise ValueError("a bid holds at least one card")
        return positions - 1

    def _action_in(self, hand: tuple[int, ...], index: int) -> Action:
        """The action at compact ``index`` for a seat holding ``hand``."""
        self.check_index(index)
        if index >= BIDS:
            return self.actions[index - BIDS]
        positions = index + 1
        if positions >> len(hand):
            raise ValueError(f"the bid {index} needs cards the hand does not hold")
        return bid_action([card for place, card in enumerate(hand) if positions >> place & 1])

    def write(self, tensor: Tensor, observation: Observation) -> None:
        seen = cast(FzzztObservation, observation)
        self._fill(
            tensor,
            Template.fresh(PER_SEAT + SEAT_PARTS * self.players, self.size),
            seen.seat,
            (PHASES[seen.phase], seen.round, seen.auction, seen.conveyor_left),
            (seen.chief, seen.current_player),
            seen.mechanics,
            (seen.hand, seen.bid, seen.draw_pile),
            list(seen.hand_sizes),
            list(seen.draw_sizes),
            list(seen.bid_sizes),
            seen.discards,
            seen.known_held,
            list(seen.owned),
            seen.units,
            seen.chits,
            seen.placed_this_phase,
            seen.belt,
            seen.pending_draws,
            seen.last_auction,
            list(seen.scores),
        )

    def write_state(self, tensor: Tensor, state: State, seat: Seat | None) -> None:
        """What ``state.observation(seat)`` holds, read from the state's own fields: the
        seat's own hand, bid and draw pile, and of the others what is public."""
        state = cast(FzzztState, state)
        hands, draws, bids = state._hands, state._draw, state._bids
        held = [state._holdings(other) for other in range(self.players)]
        self._fill(
            tensor,
            self._templates(state, seat),
            seat,
            (
                state._phase,
                state._round,
                state._auction,
                len(state._pool) - state._belt.count(HIDDEN),
            ),
            (state._chief, state._player),
            state._mechanic_of,
            ((), (), ()) if seat is None else (hands[seat], bids[seat] or (), draws[seat]),
            [*map(len, hands)],
            [*map(len, draws)],
            [None if bid is None else len(bid) for bid in bids],
            state._discard,
            state._known_held,
            [holdings.owned for holdings in held],
            state._units,
            state._chits,
            state._placed_now,
            state._belt,
            state._draws,
            state._last,
            [holdings.score for holdings in held],
        )

    def _fill(
        self,
        tensor: Tensor,
        template: Template,
        seat: Seat | None,
        counters: tuple[int, int, int, int],
        seats: tuple[Seat, Seat],
        mechanics: tuple[int | None, ...],
        own: tuple[tuple[int, ...], tuple[int, ...], tuple[int, ...]],
        hand_sizes: list[int],
        draw_sizes: list[int],
        bid_sizes: list[int | None],
        discards: tuple[tuple[int, ...], ...],
        known_held: tuple[tuple[int, ...], ...],
        owned: list[tuple[int, ...]],
        units: tuple[Units, ...],
        chits: tuple[tuple[int, ...], ...],
        placed: tuple[int, ...],
        belt: tuple[int, ...],
        pending_draws: tuple[tuple[Seat, int], ...],
        last: AuctionResult | None,
        scores: list[int],
    ) -> None:
        """Every field, from what an observation holds (seats absolute; the phase's index;
        the round, the auction's slot and the cards left on the conveyor in ``counters``),
        as ``write`` and ``write_state`` read them: one way to write, whichever the source.

        The groups of cards, units, chits, the belt and the last auction are parts of
        ``template``, written where their object changed; the counts and seats, on the
        tensor started from it."""
        players = self.players
        places = self._places[seat or 0]
        written = template.bits
        if template.previous(PART_MECHANICS, mechanics) is not UNCHANGED:
            at = self.mechanics.start
            template.clear(at, self.mechanics.stop)
            for other, place in enumerate(places):
                mechanic = mechanics[other]
                if mechanic is not None:
                    written[at + place * len(MECHANICS) + MECHANIC_INDEX[mechanic]] = ONE_BITS
        hand, bid, draw_pile = own
        template.write_flags(PART_HAND, hand, self.hand.start)
        template.write_flags(PART_BID, bid, self.bid.start)
        template.write_flags(PART_DRAW_PILE, draw_pile, self.draw_pile.start)
        owned_at, discards_at, known_at = (
            self.owned.start,
            self.discards.start,
            self.known_held.start,
        )
        units_at, chits_at = self.units.start, self.chits.start
        sources = template.sources
        for other, place in enumerate(places):
            # One part per seat and field: a move replaces one seat's, or an auction a few,
            # so each part's source is looked at here before a call is made to write it.
            part = PER_SEAT + other * SEAT_PARTS
            at = place * CARD_COUNT
            if sources[part] is not owned[other]:
                template.write_flags(part, owned[other], owned_at + at)
            if sources[part + 1] is not discards[other]:
                template.write_flags(part + 1, discards[other], discards_at + at)
            if sources[part + 2] is not known_held[other]:
                template.write_flags(part + 2, known_held[other], known_at + at)
            seat_units, seat_chits = units[other], chits[other]
            if sources[part + 3] is not seat_units:
                template.write_block(
                    part + 3, seat_units, units_at + place * UNITS_SIZE, self._units_blocks
                )
            if sources[part + 4] is not seat_chits:
                template.write_block(
                    part + 4, seat_chits, chits_at + place * SYMBOLS, self._chits_blocks
                )
        if template.previous(PART_PLACED, placed) is not UNCHANGED:
            template.clear(self.placed.start, self.placed.stop)
            for unit in placed:
                written[self.placed.start + UNIT_INDEX[unit]] = ONE_BITS
        template.write_slots(PART_BELT, belt, self._belt_runs)
        was = template.previous(PART_LAST, last)
        if was is not UNCHANGED:
            if isinstance(was, AuctionResult):  # its few values cleared, not the whole run
                self._write_last(written, was, places, 0)
            if last is not None:
                self._write_last(written, last, places, ONE_BITS)
        out = template.copy_to(tensor)
        phase, round_number, auction, conveyor_left = counters
        out[self.phase.start + phase] = 1.0
        out[self.round.start] = round_number / MANY_ROUNDS if round_number < MANY_ROUNDS else 1.0
        out[self.auction.start] = auction / BELT_SIZE
        chief, to_act = seats
        if 0 <= chief < players:  # a seat, not chance or the end
            out[self.chief.start + places[chief]] = 1.0
        if 0 <= to_act < players:
            out[self.to_act.start + places[to_act]] = 1.0
        hand_sizes_at, draw_sizes_at = self.hand_sizes.start, self.draw_sizes.start
        bid_made, bid_sizes_at = self.bid_made.start, self.bid_sizes.start
        scores_at, pending_at = self.scores.start, self.pending_draws.start
        wanted = [0] * players
        for other, cards_wanted in pending_draws:
            wanted[other] += cards_wanted
        for other, place in enumerate(places):
            held = hand_sizes[other]
            out[hand_sizes_at + place] = held / HAND_LIMIT if held < HAND_LIMIT else 1.0
            out[draw_sizes_at + place] = draw_sizes[other] / CARD_COUNT
            bid_size = bid_sizes[other]
            if bid_size is not None:
                out[bid_made + place] = 1.0
                out[bid_sizes_at + place] = bid_size / HAND_LIMIT if bid_size < HAND_LIMIT else 1.0
            score = scores[other] / HIGH_SCORE  # ``scaled``, written out: once per seat
            out[scores_at + place] = score if -1.0 <= score <= 1.0 else scaled(score, 1.0)
            drawing = wanted[other]
            if drawing:
                out[pending_at + place] = drawing / HAND_LIMIT if drawing < HAND_LIMIT else 1.0
        out[self.conveyor_left.start] = conveyor_left / CARD_COUNT

    def _write_last(
        self, written: vec[i32], last: AuctionResult, places: Sequence[int], value: int
    ) -> None:
        """``value`` (the bits of 1, or 0 to clear) where the last auction's card, winner and
        revealed bids go."""
        written[self.last_card.start + last.card] = value
        if 0 <= last.winner < self.players:
            written[self.last_winner.start + places[last.winner]] = value
        bids_at = self.last_bids.start
        for other, revealed in enumerate(last.bids):  # a few cards: set one by one
            at = bids_at + places[other] * CARD_COUNT
            for card in revealed or ():
                written[at + card] = value


def _write_units(out: MutableSequence[float], units: Units) -> None:
    """A seat's units: each one held, and how many of its placements supply each symbol."""
    for unit, items in units:
        at = UNIT_INDEX[unit] * UNIT_SIZE
        out[at] = 1.0
        supplies = [placement_symbols(item) for item in items]
        for symbol, bit in enumerate(SYMBOL_BITS):
            supplied = sum(1 for each in supplies if each & bit)
            out[at + 1 + symbol] = scaled(supplied, HAND_LIMIT)


def _write_chits(out: MutableSequence[float], chits: Iterable[int]) -> None:
    """A seat's symbol chits, counted by symbol."""
    counted = Counter(chits)
    for symbol in range(SYMBOLS):
        out[symbol] = scaled(counted[symbol], MANY_CHITS)
