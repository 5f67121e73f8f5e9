'use strict';
// The bot's heuristic, kept free of I/O so it can be tested without a referee.
//
// Cards left in hand at the end of a hand cost points, so shed the most expensive card first.
// Threes (they cancel other cards when scoring) and eights (wild: the one sure way to play
// later) are kept while anything else can be played. When several moves play the same card
// (an eight's named suit, a nine's switch), name the suit the rest of the hand follows best.
// The answer is always an index into the request's legal_moves, which the referee cannot
// misread.

// Points a card costs when left in hand, by rank (ace 1 ... king 13).
const POINTS = { 1: 1, 2: 20, 3: 3, 4: 15, 5: 30, 6: 30, 7: 20, 8: 50, 9: 30, 10: 25, 11: 10, 12: 10, 13: 10 };

// Ranks worth keeping while another card can be played.
const KEEP = new Set([3, 8]);

const RANKS = {
  RANK_ACE: 1, RANK_TWO: 2, RANK_THREE: 3, RANK_FOUR: 4, RANK_FIVE: 5, RANK_SIX: 6,
  RANK_SEVEN: 7, RANK_EIGHT: 8, RANK_NINE: 9, RANK_TEN: 10, RANK_JACK: 11, RANK_QUEEN: 12,
  RANK_KING: 13,
};

// The protocol's enums arrive as their names (proto-loader option enums: String).
function rankOf(card) {
  return card ? RANKS[card.rank] || 0 : 0;
}

function sameCard(a, b) {
  return a.rank === b.rank && a.suit === b.suit;
}

// The hand without one copy of `card` (there are two decks, so copies may repeat).
function without(hand, card) {
  const i = hand.findIndex((c) => sameCard(c, card));
  return i < 0 ? hand.slice() : hand.slice(0, i).concat(hand.slice(i + 1));
}

// How well `cards` can follow `suit`: how many of them match it, then their points.
function followScore(cards, suit) {
  const same = cards.filter((c) => c.suit === suit && rankOf(c) !== 8);
  return same.length * 100 + same.reduce((sum, c) => sum + POINTS[rankOf(c)], 0);
}

// The suit a move leaves active: the one it names, else its card's own.
function suitLeft(move) {
  return move.suit && move.suit !== 'SUIT_UNSPECIFIED' ? move.suit : move.card.suit;
}

const GO_OUT = 1e6;

// Higher is better: going out, then ordinary cards by points, then the kept ranks, then draw.
// The suit left to follow only breaks ties (followScore / 1e4 stays below 1).
function scorePlay(move, hand) {
  const rank = rankOf(move.card);
  const rest = without(hand, move.card);
  if (rest.length === 0) return GO_OUT;
  const follow = followScore(rest, suitLeft(move)) / 1e4;
  if (KEEP.has(rank)) return (rank === 3 ? 2 : 1) + follow; // spend a 3 before a wild eight
  return 100 + POINTS[rank] + follow;
}

function scoreMove(move, hand) {
  if (move.kind === 'MOVE_KIND_PLAY') return scorePlay(move, hand);
  if (move.kind === 'MOVE_KIND_CHOOSE_SUIT') return followScore(hand, move.suit);
  return 0; // draw: only when nothing else is legal (or allowed but worse)
}

// The index in `legalMoves` of the move to play (ties: the referee's order).
function chooseIndex(legalMoves, hand) {
  let best = 0;
  let bestScore = -Infinity;
  legalMoves.forEach((move, i) => {
    const score = scoreMove(move, hand || []);
    if (score > bestScore) {
      best = i;
      bestScore = score;
    }
  });
  return best;
}

module.exports = { POINTS, chooseIndex, rankOf, scoreMove };
