// The peer's game: Oh Hell for four, the trick-taking game Wizard grew from, written for
// boardgame.io. Thirteen rounds of 1 to 13 cards from a 52-card deck; the card after the deal
// names trumps (none in the last round); each seat bids the tricks it will take, then the
// tricks are played, following suit when one can; an exact bid scores 10 plus the tricks.
// What differs from Wizard: no wizards nor jesters (52 cards, not 60), 13 rounds, not 15, and
// the dealer does not choose trumps. Hands are hidden: a seat's view holds its own cards only.

const { INVALID_MOVE } = require('boardgame.io/core');

const SUITS = 4;
const RANKS = 13;
const PLAYERS = 4;
const ROUNDS = (SUITS * RANKS) / PLAYERS;

const suitOf = (card) => Math.floor(card / RANKS);

function deal(G, random) {
  const deck = random.Shuffle([...Array(SUITS * RANKS).keys()]);
  const size = G.round;
  G.hands = [...Array(PLAYERS).keys()].map((seat) => deck.slice(seat * size, (seat + 1) * size));
  const turned = deck[PLAYERS * size];
  G.trump = turned === undefined ? null : suitOf(turned);
  G.bids = Array(PLAYERS).fill(null);
  G.taken = Array(PLAYERS).fill(0);
  G.trick = [];
  G.leader = (G.dealer + 1) % PLAYERS;
  G.toAct = G.leader;
  G.phase = 'bid';
}

/** The cards `seat` may play: those of the led suit if it holds any, else all. */
function legalCards(G, seat) {
  const hand = G.hands[seat];
  if (G.trick.length === 0) return hand;
  const led = suitOf(G.trick[0]);
  const following = hand.filter((card) => suitOf(card) === led);
  return following.length ? following : hand;
}

function trickWinner(G) {
  const led = suitOf(G.trick[0]);
  const strength = (card) =>
    (suitOf(card) === G.trump ? 2 * RANKS : suitOf(card) === led ? RANKS : 0) + (card % RANKS);
  let best = 0;
  G.trick.forEach((card, index) => {
    if (strength(card) > strength(G.trick[best])) best = index;
  });
  return (G.leader + best) % PLAYERS;
}

function endRound(G, random) {
  G.bids.forEach((bid, seat) => {
    G.scores[seat] += bid === G.taken[seat] ? 10 + bid : -Math.abs(bid - G.taken[seat]);
  });
  G.round += 1;
  G.dealer = (G.dealer + 1) % PLAYERS;
  if (G.round <= ROUNDS) deal(G, random);
}

const Tricks = {
  name: 'tricks',
  minPlayers: PLAYERS,
  maxPlayers: PLAYERS,
  setup: ({ random }) => {
    const G = { round: 1, dealer: 0, scores: Array(PLAYERS).fill(0) };
    deal(G, random);
    return G;
  },
  turn: {
    minMoves: 1,
    maxMoves: 1,
    order: {
      first: ({ G }) => G.toAct,
      next: ({ G }) => G.toAct,
    },
  },
  moves: {
    bid: {
      client: false,
      move: ({ G, playerID }, tricks) => {
        if (G.phase !== 'bid' || !Number.isInteger(tricks) || tricks < 0 || tricks > G.round) {
          return INVALID_MOVE;
        }
        G.bids[Number(playerID)] = tricks;
        G.toAct = (G.toAct + 1) % PLAYERS;
        if (G.toAct === G.leader) G.phase = 'play';
      },
    },
    play: {
      client: false,
      move: ({ G, playerID, random }, card) => {
        const seat = Number(playerID);
        if (G.phase !== 'play' || !legalCards(G, seat).includes(card)) return INVALID_MOVE;
        G.hands[seat] = G.hands[seat].filter((held) => held !== card);
        G.trick.push(card);
        G.toAct = (G.toAct + 1) % PLAYERS;
        if (G.trick.length < PLAYERS) return;
        const winner = trickWinner(G);
        G.taken[winner] += 1;
        G.trick = [];
        G.leader = winner;
        G.toAct = winner;
        if (G.hands[winner].length === 0) endRound(G, random);
      },
    },
  },
  endIf: ({ G }) => (G.round > ROUNDS ? { scores: G.scores } : undefined),
  playerView: ({ G, playerID }) => ({
    ...G,
    hands: G.hands.map((hand, seat) => (String(seat) === playerID ? hand : hand.length)),
  }),
};

module.exports = { Tricks, legalCards, PLAYERS, ROUNDS };
