'use strict';
// The bot side of the protocol without I/O: a RefereePacket in, the reply messages out.
//
// Kept apart from the gRPC stream (bot.js) so every protocol rule is in one place and can be
// tested with plain objects. Messages are decoded by @grpc/proto-loader with keepCase, enums as
// strings, longs as strings and `oneofs: true`, so each message names its case in `payload`.

const { chooseIndex } = require('./strategy');

// A fatal Error from the referee: the stream is over and the process should exit.
class RefereeError extends Error {
  constructor(code, message) {
    super(`${code}: ${message}`);
    this.code = code;
  }
}

class Session {
  constructor(log = (line) => process.stderr.write(`${line}\n`)) {
    this.log = log;
    this.games = new Map(); // game_id -> { seat, players }
    this.welcomed = false;
  }

  // Handle every message of a packet in order; return the replies to send in ONE packet.
  handle(packet) {
    const replies = [];
    for (const message of packet.messages || []) {
      const reply = this.dispatch(message);
      if (reply) replies.push(reply);
    }
    return replies;
  }

  dispatch(message) {
    const handler = HANDLERS[message.payload];
    if (!handler) {
      this.log(`craits-js-bot: ignoring a message of unknown kind ${message.payload}`);
      return null;
    }
    return handler.call(this, message[message.payload]);
  }

  onWelcome(msg) {
    this.welcomed = true;
    this.log(`craits-js-bot: connected as ${msg.bot_name} (session ${msg.session_id})`);
    return null;
  }

  onGameStart(msg) {
    // A second GameStart for a live game is a resume after a reconnect: nothing to reset.
    this.games.set(msg.game_id, { seat: msg.seat, players: msg.players.length });
    return null;
  }

  onDecision(req) {
    const hand = req.observation ? req.observation.hand : [];
    return moveReply(req.game_id, req.decision_id, chooseIndex(req.legal_moves, hand));
  }

  onRejected(msg) {
    this.log(
      `craits-js-bot: game ${msg.game_id} decision ${msg.decision_id} refused: ` +
        `${msg.reason} (${msg.retries_left} retries left)`,
    );
    // The first legal move is always legal: the safest retry while the referee allows one.
    return msg.retries_left > 0 ? moveReply(msg.game_id, msg.decision_id, 0) : null;
  }

  onUpdate() {
    return null; // this heuristic needs no history
  }

  onGameEnd(msg) {
    const game = this.games.get(msg.game_id);
    this.games.delete(msg.game_id);
    if (game) {
      const total = msg.totals[game.seat];
      const place = msg.places[game.seat];
      this.log(`craits-js-bot: game ${msg.game_id} over: place ${place}, total ${total}`);
    }
    return null;
  }

  onError(msg) {
    throw new RefereeError(msg.code, msg.message);
  }
}

const HANDLERS = {
  welcome: Session.prototype.onWelcome,
  game_start: Session.prototype.onGameStart,
  decision: Session.prototype.onDecision,
  rejected: Session.prototype.onRejected,
  update: Session.prototype.onUpdate,
  game_end: Session.prototype.onGameEnd,
  error: Session.prototype.onError,
};

// A BotMessage answering a decision with the move at `index` of its legal_moves.
function moveReply(gameId, decisionId, index) {
  return { move: { game_id: gameId, decision_id: decisionId, legal_index: index } };
}

// The first packet of every connection.
function helloPacket(token) {
  const hello = { protocol_version: 'PROTOCOL_VERSION_1', token, client: 'craits-js-bot' };
  return { messages: [{ hello }] };
}

module.exports = { RefereeError, Session, helloPacket, moveReply };
