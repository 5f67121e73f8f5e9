'use strict';
// Protocol rules without a network: one reply packet per referee packet, retries, fatal errors.
const test = require('node:test');
const assert = require('node:assert');
const { RefereeError, Session, helloPacket } = require('../lib/session');

const quiet = () => {};
const DRAW = { kind: 'MOVE_KIND_DRAW', suit: 'SUIT_UNSPECIFIED' };

function decision(gameId, decisionId) {
  return {
    payload: 'decision',
    decision: { game_id: gameId, decision_id: decisionId, observation: { hand: [] }, legal_moves: [DRAW] },
  };
}

test('hello names the protocol version, the token and the client', () => {
  const hello = helloPacket('tok').messages[0].hello;
  assert.deepStrictEqual(hello, { protocol_version: 'PROTOCOL_VERSION_1', token: 'tok', client: 'craits-js-bot' });
});

test('every decision of a packet is answered, in order, by legal index', () => {
  const replies = new Session(quiet).handle({ messages: [decision('a', '1'), decision('b', '7')] });
  assert.deepStrictEqual(replies.map((r) => [r.move.game_id, r.move.decision_id, r.move.legal_index]),
    [['a', '1', 0], ['b', '7', 0]]);
});

test('a rejection is retried with the first legal move while retries are left', () => {
  const session = new Session(quiet);
  const rejected = (left) => ({ payload: 'rejected', rejected: { game_id: 'a', decision_id: '3', reason: 'no', retries_left: left } });
  assert.deepStrictEqual(session.handle({ messages: [rejected(1)] }), [{ move: { game_id: 'a', decision_id: '3', legal_index: 0 } }]);
  assert.deepStrictEqual(session.handle({ messages: [rejected(0)] }), []);
});

test('welcome, game start, update and game end need no reply', () => {
  const session = new Session(quiet);
  const replies = session.handle({ messages: [
    { payload: 'welcome', welcome: { bot_name: 'x', session_id: 's1' } },
    { payload: 'game_start', game_start: { game_id: 'a', seat: 1, players: [{}, {}] } },
    { payload: 'update', update: { game_id: 'a', events: [] } },
    { payload: 'game_end', game_end: { game_id: 'a', totals: [1, 2], places: [1, 2] } },
  ] });
  assert.deepStrictEqual(replies, []);
  assert.ok(session.welcomed);
  assert.strictEqual(session.games.size, 0);
});

test('a fatal error stops the session', () => {
  const error = { payload: 'error', error: { code: 'ERROR_CODE_BAD_TOKEN', message: 'unknown token' } };
  assert.throws(() => new Session(quiet).handle({ messages: [error] }), RefereeError);
});
