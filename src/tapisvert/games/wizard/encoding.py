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

Actions: the action ids the seats decide, which are compact already: play a kind (0–53),
bid 0–20, choose a trump suit (79 in all). The first dealer is chance, not a decision.
"""

from __future__ import annotations

from typing import cast

from tapisvert.core.game import Observation
from tapisvert.encoding import Encoding, Field, Tensor, add_counts, one_hot, scaled
from tapisvert.games.wizard.cards import COPIES_OF_SPECIALS, KINDS, NO_TRUMP, SUIT_CARDS, SUITS
from tapisvert.games.wizard.rules import (
    DEALER_BASE,
    PHASE_NAMES,
    WizardGame,
    WizardObservation,
)

SPECIAL_WEIGHT = 1 / COPIES_OF_SPECIALS


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

    def write(self, tensor: Tensor, observation: Observation) -> None:
        seen = cast(WizardObservation, observation)
        relative = self.relative
        one_hot(tensor, self.phase, PHASE_NAMES.index(seen.phase))
        tensor[self.round.start] = seen.round_index / seen.rounds
        tensor[self.round.start + 1] = seen.round_number / self.most_cards
        one_hot(tensor, self.dealer, relative(seen, seen.dealer))
        one_hot(tensor, self.to_act, relative(seen, seen.current_player))
        one_hot(tensor, self.leader, relative(seen, seen.leader))
        _add_cards(tensor, self.hand, seen.hand)
        if seen.trump_card is not None:
            _add_cards(tensor, self.trump_card, (seen.trump_card,))
        if seen.trump is not None:
            one_hot(tensor, self.trump, SUITS if seen.trump == NO_TRUMP else seen.trump)
        for place, bid in enumerate(self.by_seat(seen, seen.bids)):
            if bid is not None:
                tensor[self.bid_made.start + place] = 1.0
                tensor[self.bids.start + place] = bid / self.most_cards
        for place, taken in enumerate(self.by_seat(seen, seen.tricks_won)):
            tensor[self.tricks_won.start + place] = taken / self.most_cards
        for place, size in enumerate(self.by_seat(seen, seen.hand_sizes)):
            tensor[self.hand_sizes.start + place] = size / self.most_cards
        for order, card in enumerate(seen.trick):
            place = cast(int, relative(seen, (seen.leader + order) % self.players))
            _add_cards(tensor, self.trick.block(place, KINDS), (card,))
        for trick in seen.completed_tricks:
            _add_cards(tensor, self.played, trick.cards)
        for place, score in enumerate(self.by_seat(seen, seen.scores)):
            tensor[self.scores.start + place] = scaled(score, self.best_total)


def _add_cards(tensor: Tensor, kinds: Field, cards: tuple[int, ...]) -> None:
    """Count ``cards`` by kind within ``kinds``, a Wizard or Jester for a quarter."""
    add_counts(tensor, kinds, (card for card in cards if card < SUIT_CARDS))
    add_counts(tensor, kinds, (card for card in cards if card >= SUIT_CARDS), SPECIAL_WEIGHT)
