"""Wizard observations as tensors (``tapisvert.encoding``).

Layout for P players (``WizardEncoding(game).describe()`` prints it with offsets); seats
are relative to the observer, cards are the 54 kinds (52 suit cards, Wizard, Jester; a
Wizard or Jester counts 1/4 per copy):

- ``phase`` (7): one-hot of dealer, deal, turn, trump, bid, play, end;
- ``round`` (2): rounds played / rounds of the game, cards dealt this round / the most;
- ``dealer``, ``to_act``, ``leader`` (P each): one-hot relative seats;
- ``hand`` (54): the observer's cards;
- ``trump_card`` (54): the turned card; ``trump`` (5): the four suits and no trump;
- ``bid_made`` (P), ``bids`` (P): whether each seat's bid is visible, and the bid / the most
  cards of a round (with hidden bids, another seat's bid shows once every bid is in);
- ``tricks_won``, ``hand_sizes`` (P each): per seat / the most cards of a round;
- ``trick`` (P × 54): the card each seat put on the current trick;
- ``played`` (54): the cards of the round's finished tricks;
- ``scores`` (P): the totals / the best total the rounds allow (within [-1, 1]).

``write_state`` reads from the state what the seat's observation would hold, no more, and
writes it through the same code as ``write``: the same values, without building the
observation.

Actions: the action ids the seats decide, which are compact already: play a kind (0–53),
bid 0–20, choose a trump suit (79 in all). The first dealer is chance, not a decision.
"""

from __future__ import annotations

from array import array
from collections.abc import MutableSequence
from typing import Final, cast

from tapisvert.core.cache import IdentityCache
from tapisvert.core.game import Observation, Seat, State
from tapisvert.encoding import ONE_BITS, Encoding, Tensor, float32_bits
from tapisvert.games.wizard.cards import (
    COPIES_OF_SPECIALS,
    HAND_PARTS,
    JESTER,
    KINDS,
    NO_TRUMP,
    SPECIALS,
    SUIT_CARDS,
    SUITS,
    WIZARD,
    hand_of,
    hand_parts,
    part_count,
    part_kinds,
)
from tapisvert.games.wizard.observation import Trick
from tapisvert.games.wizard.rules import (
    DEALER_BASE,
    PHASE_BID,
    PHASE_NAMES,
    PHASE_PLAY,
    PHASE_TRUMP,
    TRUMP_UNDECIDED,
    WizardGame,
    WizardObservation,
    WizardState,
)

SPECIAL_WEIGHT: Final = 1 / COPIES_OF_SPECIALS
CARD_WEIGHTS: Final = tuple(1.0 if kind < SUIT_CARDS else SPECIAL_WEIGHT for kind in range(KINDS))
"""What one card of each kind counts for."""
CARD_WEIGHT_BITS: Final = tuple(float32_bits(weight) for weight in CARD_WEIGHTS)
SPECIAL_COUNT_BITS: Final = tuple(float32_bits(count * SPECIAL_WEIGHT) for count in range(8))
"""The value of 0 to 7 copies of a special card held (a hand's count is 3 bits)."""
NO_HAND: Final = [0] * HAND_PARTS
"""A spectator's hand, in parts: none."""
Settled = tuple[Seat, int, int, Seat, int, int, tuple[int, ...]]
"""What changes once a round or so, as the observer sees it: the observer (its seat, or 0),
the round's index and cards, the dealer, the turned card (-1: none), the trump
(``TRUMP_UNDECIDED``: none yet) and the scores."""
PHASES: Final = {name: index for index, name in enumerate(PHASE_NAMES)}
Finished = tuple[tuple[Trick, ...], tuple[int, ...], "array[float]"]
"""Finished tricks, the tricks each seat took of them, and their ``played`` field."""
ZERO_PLAYED: Final = array("f", bytes(4 * KINDS))


class WizardEncoding(Encoding):
    """The tensor of a Wizard observation and the compact space of the seats' decisions."""

    def __init__(self, game: WizardGame) -> None:
        rounds = game.round_numbers
        super().__init__(
            game,
            range(DEALER_BASE),
            chance_actions=DEALER_BASE + game.players,
            # Per round: every bid, every card, and the dealer's trump after a turned Wizard.
            longest_game=sum(game.players * (cards + 1) + 1 for cards in rounds),
            # A round pays 20 + 10 per trick for a bid made, loses 10 per trick off.
            score_bounds=(-10.0 * sum(rounds), float(sum(20 + 10 * cards for cards in rounds))),
        )
        self.hidden_bids = game.hidden_bids
        self.round_count = len(rounds)
        players = self.players
        self.most_cards = max(game.round_numbers)
        self.best_total = sum(20 + 10 * cards for cards in game.round_numbers)
        self.phase = self.field("phase", len(PHASE_NAMES), "one-hot phase")
        self.round = self.field("round", 2, "rounds played / rounds; cards dealt / the most")
        self.dealer = self.field("dealer", players, "one-hot relative dealer")
        self.to_act = self.field("to_act", players, "one-hot relative seat to act, if a seat")
        self.leader = self.field("leader", players, "one-hot relative leader of the trick")
        self.hand = self.field("hand", KINDS, "own cards by kind (specials 1/4 per copy)")
        self.trump_card = self.field("trump_card", KINDS, "the turned trump card")
        self.trump = self.field("trump", SUITS + 1, "one-hot trump suit, last: no trump")
        self.bid_made = self.field("bid_made", players, "whether each seat's bid is visible")
        self.bids = self.field("bids", players, "each seat's visible bid / the most cards")
        self.tricks_won = self.field("tricks_won", players, "tricks taken / the most cards")
        self.hand_sizes = self.field("hand_sizes", players, "cards in hand / the most cards")
        self.trick = self.field("trick", players * KINDS, "the card each seat put on the trick")
        self.played = self.field("played", KINDS, "cards of the round's finished tricks")
        self.scores = self.field("scores", players, "totals / the best possible total")
        self._phase_at, self._to_act_at, self._leader_at, self._hand_at = (
            self.phase.start,
            self.to_act.start,
            self.leader.start,
            self.hand.start,
        )
        self._round_at, self._dealer_at, self._trump_card_at, self._trump_at = (
            self.round.start,
            self.dealer.start,
            self.trump_card.start,
            self.trump.start,
        )
        self._staging = self.staging()
        self._played_at = self.played.start
        self._of_most = tuple(
            float32_bits(count / self.most_cards) for count in range(self.most_cards + 1)
        )
        """The value of a count of cards, bids or tricks: over the most cards of a round."""
        self._of_rounds = tuple(
            float32_bits(index / self.round_count) for index in range(self.round_count + 1)
        )
        """The value of a number of rounds played."""
        self._score_values: dict[int, int] = {}
        """The value of each seat's total met so far (see ``_score_value``)."""
        self._seen_from = [self._seats_seen_from(origin) for origin in range(players)]
        """Per observer: where each seat's card on the trick begins, and for each seat where
        its bid flag, bid, tricks, hand size and score go (seats relative to the observer)."""
        self._sizes_in_trick = tuple(
            tuple(
                tuple(
                    tuple(left - ((seat - leader) % players < played) for seat in range(players))
                    for left in range(self.most_cards + 1)
                )
                for played in range(players)
            )
            for leader in range(players)
        )
        """``[leader][cards on the trick][cards each seat held before it]``: every hand's
        size, from the trump's choice to the last trick (one card less for each seat that
        has played to the trick)."""
        self._none_finished: tuple[MutableSequence[float] | None, tuple[int, ...]] = (
            None,
            (0,) * players,
        )
        """The ``played`` field (none) and the tricks taken before a trick is finished."""
        self._finished: IdentityCache[
            tuple[Trick, ...], tuple[MutableSequence[float], tuple[int, ...]]
        ] = IdentityCache(self._finished_tricks, size=256)
        self._last_finished: Finished = ((), self._none_finished[1], ZERO_PLAYED)
        """The finished tricks converted last, and what they gave: the next ones are most
        often the same and one trick more."""

    def write(self, tensor: Tensor, observation: Observation) -> None:
        seen = cast(WizardObservation, observation)
        self._fill(
            tensor,
            (
                seen.seat or 0,
                seen.round_index,
                seen.round_number,
                seen.dealer,
                -1 if seen.trump_card is None else seen.trump_card,
                TRUMP_UNDECIDED if seen.trump is None else seen.trump,
                seen.scores,
            ),
            PHASES[seen.phase],
            tuple([-1 if bid is None else bid for bid in seen.bids]),
            seen.current_player,
            seen.leader,
            hand_parts(hand_of(seen.hand)),
            seen.hand_sizes,
            list(seen.trick),
            seen.completed_tricks,
        )

    def write_state(self, tensor: Tensor, state: State, seat: Seat | None) -> None:
        """What ``state.observation(seat)`` holds, read from the state's own fields."""
        assert isinstance(state, WizardState)  # as a cast, less a call
        bids = state._bids
        phase = state._phase
        if self.hidden_bids and phase == PHASE_BID:
            bids = tuple(bid if other == seat else -1 for other, bid in enumerate(bids))
        hand_sizes: tuple[int, ...]
        if PHASE_TRUMP <= phase <= PHASE_PLAY:  # dealt: the hands shrink trick by trick
            left = state._cards - len(state._completed)
            hand_sizes = self._sizes_in_trick[state._leader][len(state._trick)][left]
        else:
            hand_sizes = tuple([part_count(hand) for hand in state._hands])
        self._fill(
            tensor,
            (
                seat or 0,
                state._round_index,
                state._cards,
                state._dealer,
                state._trump_card,
                state._trump,
                state._scores,
            ),
            phase,
            bids,
            state._player,
            state._leader,
            NO_HAND if seat is None else state._hands[seat],
            hand_sizes,
            state._trick,
            state._completed,
        )

    def _fill(
        self,
        tensor: Tensor,
        settled: Settled,
        phase: int,
        bids: tuple[int, ...],
        to_act: Seat,
        leader: Seat,
        hand: list[int],
        hand_sizes: tuple[int, ...],
        trick: list[int],
        completed: tuple[Trick, ...],
    ) -> None:
        """Every field, from what an observation holds in the state's form (seats absolute,
        the hand in parts, -1 for no bid or no trump card), as ``write`` and
        ``write_state`` read them: one way to write, whichever the source.

        The values start as zeros (a :class:`Staging`'s), each field is set where it is not
        zero, then they are copied into the tensor, the finished tricks' ``played`` field
        after them. (A template per round of what changes once a round, kept by its values,
        was made for a fifth of the tensors of short rounds and cost more than writing those
        few values each time.)"""
        staging = self._staging
        values = staging.zeros[0 : staging.size]
        players = self.players
        origin, round_index, cards, dealer, trump_card, trump, scores = settled
        tricks_at, slots = self._seen_from[origin]
        of_most = self._of_most
        values[self._round_at] = self._of_rounds[round_index]
        values[self._round_at + 1] = of_most[cards]
        values[self._dealer_at + (dealer - origin) % players] = ONE_BITS
        if trump_card >= 0:
            values[self._trump_card_at + trump_card] = CARD_WEIGHT_BITS[trump_card]
        if trump != TRUMP_UNDECIDED:
            values[self._trump_at + (SUITS if trump == NO_TRUMP else trump)] = ONE_BITS
        values[self._phase_at + phase] = ONE_BITS
        if 0 <= to_act < players:
            values[self._to_act_at + (to_act - origin) % players] = ONE_BITS
        values[self._leader_at + (leader - origin) % players] = ONE_BITS
        at_hand = self._hand_at
        for card in part_kinds(hand):
            values[at_hand + card] = ONE_BITS
        specials = hand[SPECIALS]
        if specials:  # counts, as wizard_count and jester_count read them
            values[at_hand + WIZARD] = SPECIAL_COUNT_BITS[specials & 7]
            values[at_hand + JESTER] = SPECIAL_COUNT_BITS[specials >> 3]
        played, tricks_won = self._finished(completed) if completed else self._none_finished
        score_values = self._score_values
        for other, made, bid_at, won, size, scored in slots:
            score = scores[other]
            if score:
                value = score_values.get(score)
                values[scored] = self._score_value(score) if value is None else value
            bid = bids[other]
            if bid >= 0:
                values[made] = ONE_BITS
                if bid:
                    values[bid_at] = of_most[bid]
            taken = tricks_won[other]
            if taken:
                values[won] = of_most[taken]
            held = hand_sizes[other]
            if held:
                values[size] = of_most[held]
        for order, card in enumerate(trick):
            values[tricks_at[(leader + order) % players] + card] = CARD_WEIGHT_BITS[card]
        bits, floats = staging.targets(tensor)
        bits[:] = values
        if played is not None:
            floats[self._played_at : self._played_at + KINDS] = played

    def _score_value(self, score: int) -> int:
        """The value of a seat's total, over the best total the rounds allow (within [-1, 1]),
        worked out once per total (a round's points are tens: a few hundred totals at most)."""
        bits = float32_bits(max(-1.0, min(1.0, score / self.best_total)))
        self._score_values[score] = bits
        return bits

    def _seats_seen_from(
        self, origin: Seat
    ) -> tuple[tuple[int, ...], tuple[tuple[int, int, int, int, int, int], ...]]:
        places = [(seat - origin) % self.players for seat in range(self.players)]
        return (
            tuple(self.trick.start + place * KINDS for place in places),
            tuple(
                (
                    seat,
                    self.bid_made.start + place,
                    self.bids.start + place,
                    self.tricks_won.start + place,
                    self.hand_sizes.start + place,
                    self.scores.start + place,
                )
                for seat, place in enumerate(places)
            ),
        )

    def _finished_tricks(
        self, completed: tuple[Trick, ...]
    ) -> tuple[MutableSequence[float], tuple[int, ...]]:
        """The ``played`` field and the tricks each seat took of a round's finished tricks,
        computed once while they are the same, from those of the tricks converted last
        where these are them and more."""
        before, taken_before, played_before = self._last_finished  # one read: threads
        count = len(before)
        if count < len(completed) and completed[:count] == before:
            played = array("f", played_before)
            taken = list(taken_before)
            added = completed[count:]
        else:
            played = array("f", ZERO_PLAYED)
            taken = [0] * self.players
            added = completed
        for _, cards, winner in added:
            taken[winner] += 1
            for card in cards:
                played[card] += CARD_WEIGHTS[card]
        self._last_finished = (completed, tuple(taken), played)
        return played, self._last_finished[1]
