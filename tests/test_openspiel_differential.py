"""Differential test against an independent engine: OpenSpiel's ``oh_hell``.

On deals of suit cards only, Wizard with the Canadian ("hook") rule is Oh Hell: the
same deal, bids and plays must give the same legal moves at every step, the same
trick winners (who leads next) and the same scores, where OpenSpiel's made bid
scores exactly 10 less (10 per trick plus 10, against our 20 plus 10 per trick).
"""

from __future__ import annotations

import random

import pytest

from tapisvert import load_game
from tapisvert.games.wizard import WizardState, bid_action
from tapisvert.games.wizard.cards import VALUES

pyspiel = pytest.importorskip(
    "pyspiel", reason="OpenSpiel (the open_spiel package) is not installed for this Python"
)

HANDS = 2000


def theirs(card: int) -> int:
    """Our suit card (suit * 13 + value - 1) as OpenSpiel's (rank * 4 + suit)."""
    return (card % VALUES) * 4 + card // VALUES


def compare_hand(rng: random.Random) -> None:
    players = rng.randint(3, 6)
    tricks = rng.randint(1, min(60 // players, 51 // players))
    dealer = rng.randrange(players)
    their_game = pyspiel.load_game(
        "oh_hell",
        {
            "players": players,
            "num_tricks_fixed": tricks,
            "points_per_trick": 10,
            "off_bid_penalty": True,
        },
    )
    ours = load_game(
        "wizard", players=players, rounds=str(tricks), first_dealer=f"P{dealer + 1}", canadian=True
    ).new_initial_state()
    assert isinstance(ours, WizardState)
    other = their_game.new_initial_state()
    while other.is_chance_node() and len(other.legal_actions()) == 1:
        other.apply_action(other.legal_actions()[0])
    other.apply_action(dealer)
    deal = rng.sample(range(52), tricks * players + 1)
    # OpenSpiel deals from seat 0 on, we deal from the dealer's left: same hands either way.
    hands = [deal[seat : tricks * players : players] for seat in range(players)]
    for index in range(tricks * players):
        ours.apply_action(hands[(dealer + 1 + index) % players][index // players])
    ours.apply_action(deal[-1])
    for card in deal:
        other.apply_action(theirs(card))
    bidding = True
    while not ours.is_terminal():
        assert ours.current_player() == other.current_player()
        legal = ours.legal_actions()
        if bidding:
            mapped = sorted(action - bid_action(0) + 52 for action in legal)
        else:
            mapped = sorted(theirs(card) for card in legal)
        assert mapped == sorted(other.legal_actions())
        action = rng.choice(legal)
        ours.apply_action(action)
        other.apply_action(action - bid_action(0) + 52 if bidding else theirs(action))
        bidding = ours.observation(None).phase == "bid"
    assert other.is_terminal()
    summary = ours.observation(None).past_rounds[-1]
    expected = [
        score - (10 if bid == took else 0)
        for score, bid, took in zip(ours.returns(), summary.bids, summary.tricks, strict=True)
    ]
    assert expected == other.returns()


@pytest.mark.slow
def test_same_moves_winners_and_scores_as_openspiel_oh_hell() -> None:
    rng = random.Random(2026)
    for _ in range(HANDS):
        compare_hand(rng)
