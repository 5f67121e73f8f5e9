'use strict';
// The heuristic on hand-made requests shaped as proto-loader decodes them (enums as names).
const test = require('node:test');
const assert = require('node:assert');
const { chooseIndex } = require('../lib/strategy');

const RANK = ['', 'ACE', 'TWO', 'THREE', 'FOUR', 'FIVE', 'SIX', 'SEVEN', 'EIGHT', 'NINE', 'TEN',
  'JACK', 'QUEEN', 'KING'];
const SUIT = { C: 'SUIT_CLUBS', D: 'SUIT_DIAMONDS', H: 'SUIT_HEARTS', S: 'SUIT_SPADES' };

// "8C" -> { rank: 'RANK_EIGHT', suit: 'SUIT_CLUBS' }
function card(text) {
  const rank = { A: 1, J: 11, Q: 12, K: 13 }[text[0]] || Number(text.slice(0, -1));
  return { rank: `RANK_${RANK[rank]}`, suit: SUIT[text.slice(-1)] };
}

function play(text, suit) {
  return { kind: 'MOVE_KIND_PLAY', card: card(text), suit: suit ? SUIT[suit] : 'SUIT_UNSPECIFIED' };
}

const DRAW = { kind: 'MOVE_KIND_DRAW', suit: 'SUIT_UNSPECIFIED' };

test('sheds the card that costs the most points', () => {
  const hand = ['AH', '5H', '10H', 'KH'].map(card);
  assert.strictEqual(chooseIndex([play('AH'), play('5H'), play('10H'), play('KH')], hand), 1);
});

test('keeps threes and eights while anything else can be played', () => {
  const hand = ['3H', '8H', 'AH', 'KS'].map(card);
  const legal = [play('3H'), play('8H', 'S'), play('AH')];
  assert.strictEqual(chooseIndex(legal, hand), 2);
});

test('spends a three before a wild eight', () => {
  const hand = ['3H', '8H', 'KS'].map(card);
  assert.strictEqual(chooseIndex([play('8H', 'S'), play('3H')], hand), 1);
});

test('goes out whenever it can', () => {
  assert.strictEqual(chooseIndex([DRAW, play('8H', 'C')], [card('8H')]), 1);
});

test('an eight names the suit the rest of the hand follows best', () => {
  const hand = ['8C', '3S', 'KS', 'QS', 'AD'].map(card);
  const legal = ['C', 'D', 'H', 'S'].map((s) => play('8C', s));
  assert.strictEqual(chooseIndex(legal, hand), 3);
});

test('draws only when nothing can be played', () => {
  assert.strictEqual(chooseIndex([DRAW], [card('5H')]), 0);
  assert.strictEqual(chooseIndex([DRAW, play('3H')], ['3H', '5D'].map(card)), 1);
});

test("the dealer's suit choice follows the hand", () => {
  const legal = ['C', 'D', 'H', 'S'].map((s) => ({ kind: 'MOVE_KIND_CHOOSE_SUIT', suit: SUIT[s] }));
  assert.strictEqual(chooseIndex(legal, ['2D', '5D', 'KS'].map(card)), 1);
});
