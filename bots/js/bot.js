#!/usr/bin/env node
'use strict';
// A Craits bot in JavaScript: proof that the referee's protocol needs nothing but its .proto.
//
// The referee launches this process with CRAITS_SERVER (host:port) and CRAITS_TOKEN in the
// environment. It opens ONE Referee.Connect stream, says Hello, and answers every decision of a
// packet in one packet (lib/session.js; the heuristic is lib/strategy.js). The schema is loaded
// at run time from ../../proto, so the bot never goes stale against a generated copy.
//
// Exit status: 0 the referee ended the stream normally (or shut down); 2 the referee sent any
// other fatal Error, or the environment is incomplete; 3 the referee stayed unreachable.

const dns = require('dns');
const fs = require('fs');
const net = require('net');
const os = require('os');
const path = require('path');
const grpc = require('@grpc/grpc-js');
const protoLoader = require('@grpc/proto-loader');
const { RefereeError, Session, helloPacket } = require('./lib/session');

const PROTO_ROOT = path.join(__dirname, '..', '..', 'proto');
const PROTO_FILE = 'craits/v1/referee.proto';
// Enums as their names and 64-bit integers as plain numbers: every 64-bit field of the protocol
// stays within 2^53 (scores, event values, decision ids), so a number holds it exactly and
// `event.aux === -1` works. `oneofs` names each message's case in `payload`.
const LOADER_OPTIONS = {
  keepCase: true,
  enums: String,
  longs: Number,
  defaults: true,
  oneofs: true,
  includeDirs: [PROTO_ROOT],
};

const EXIT_OK = 0;
const EXIT_REFUSED = 2;
const EXIT_UNREACHABLE = 3;
const ATTEMPTS = 8; // failed connections in a row before giving up (reset by each Welcome)
const BACKOFF_MS = 200; // first wait before re-dialling; doubles each time
const MAX_BACKOFF_MS = 5000; // with ATTEMPTS, about 16 s of trying, as the Python SDK does
// A refusal that a later dial can get past: too many streams waiting to say Hello, or too many
// wrong tokens, from this bot's address (others behind it). Retried with backoff as a failed
// dial, even before any Welcome; the referee never refuses a right token.
const RETRIED_ALWAYS = new Set(['ERROR_CODE_ABUSE']);
// Retried once this bot has been welcomed: the referee may still hold the old stream's token.
const RETRIED_ON_REDIAL = new Set(['ERROR_CODE_BAD_TOKEN', 'ERROR_CODE_ABUSE']);
const ALLOW_PLAINTEXT = 'CRAITS_ALLOW_PLAINTEXT';

function log(line) {
  process.stderr.write(`${line}\n`);
}

function loadRefereeClient() {
  const definition = protoLoader.loadSync(PROTO_FILE, LOADER_OPTIONS);
  return grpc.loadPackageDefinition(definition).craits.v1.Referee;
}

// Run one stream to its end. Resolves to {done}, {fatal: RefereeError} or {reason} (dropped).
function connectOnce(client, session, token) {
  return new Promise((resolve) => {
    const call = client.Connect();
    let settled = false;
    const finish = (outcome) => {
      if (!settled) {
        settled = true;
        resolve(outcome);
      }
    };
    call.on('data', (packet) => {
      try {
        const replies = session.handle(packet);
        if (replies.length > 0) call.write({ messages: replies });
      } catch (err) {
        call.cancel();
        finish(err instanceof RefereeError ? { fatal: err } : { reason: String(err) });
      }
    });
    call.on('error', () => {}); // the 'status' event below says how the stream ended
    call.on('status', (status) => {
      call.end();
      finish(status.code === grpc.status.OK ? { done: true } : { reason: describe(status) });
    });
    call.write(helloPacket(token));
  });
}

function describe(status) {
  return `${grpc.status[status.code] || status.code}: ${status.details}`;
}

function sleep(ms) {
  return new Promise((resolve) => setTimeout(resolve, ms));
}

// Where to dial and how: TLS when CRAITS_TLS_CA names a CA file (PEM) or the address starts
// with tls:// or https:// (then the system's CAs unless CRAITS_TLS_CA is set); a unix: socket
// (a sandbox's) never leaves the machine and stays plain, as in the Python SDK.
function dialTarget(server, env) {
  const scheme = /^(tls|https):\/\//.exec(server);
  const address = scheme ? server.slice(scheme[0].length).replace(/\/+$/, '') : server;
  const caFile = env.CRAITS_TLS_CA;
  if (address.startsWith('unix:') || (!scheme && !caFile)) {
    return { address, tls: false, credentials: grpc.credentials.createInsecure() };
  }
  const ca = caFile ? fs.readFileSync(caFile) : null;
  return { address, tls: true, credentials: grpc.credentials.createSsl(ca) };
}

// Whether every address `host` names is this machine's (loopback, unspecified, or an address
// of one of its interfaces): a plain-text dial there never leaves the machine.
async function isThisMachine(host) {
  const bare = host.replace(/^\[|\]$/g, '');
  if (bare === 'localhost') return true;
  let found;
  try {
    found = net.isIP(bare) ? [{ address: bare }] : await dns.promises.lookup(bare, { all: true });
  } catch {
    return false;
  }
  const own = new Set(['0.0.0.0', '::', '::1']);
  for (const list of Object.values(os.networkInterfaces())) {
    for (const iface of list || []) own.add(iface.address);
  }
  const local = (a) => own.has(a) || a.startsWith('127.') || a.startsWith('::ffff:127.');
  return found.length > 0 && found.every(({ address }) => local(address));
}

// Why this bot will not dial `server` (null when it may): a plain-text dial beyond this machine
// would hand the token to whoever answers, readable on the path, as in the Python SDK.
async function plaintextRefusal(server, env) {
  const { address, tls } = dialTarget(server, env);
  if (tls || address.startsWith('unix:') || env[ALLOW_PLAINTEXT] === '1') return null;
  if (await isThisMachine(address.slice(0, address.lastIndexOf(':')))) return null;
  return `CRAITS_SERVER ${address} is beyond this machine and the dial is plain text: this bot ` +
    'will not send its token where anyone on the path can read it. Dial over TLS: ' +
    `CRAITS_SERVER=tls://${address} (checked against this system's CAs), or CRAITS_TLS_CA=FILE ` +
    'naming the CA certificate the organiser gave you (`craits serve` prints it); or, on a ' +
    `network you trust, set ${ALLOW_PLAINTEXT}=1`;
}

// Connect, and re-dial with backoff while the stream keeps dropping; return the exit status.
async function serve(server, token) {
  const refusal = await plaintextRefusal(server, process.env);
  if (refusal) {
    log(`craits-js-bot: ${refusal}`);
    return EXIT_REFUSED;
  }
  const { address, credentials } = dialTarget(server, process.env);
  const client = new (loadRefereeClient())(address, credentials);
  const session = new Session(log);
  let failures = 0; // dials in a row that were not welcomed (a stream that was welcomed and
  let everWelcomed = 0; // then dropped is not one); as the Python SDK counts them
  for (;;) {
    session.welcomed = false;
    const outcome = await connectOnce(client, session, token);
    if (outcome.done) return EXIT_OK;
    if (session.welcomed) everWelcomed = 1;
    const code = outcome.fatal && outcome.fatal.code;
    const retried = RETRIED_ALWAYS.has(code) || (everWelcomed && RETRIED_ON_REDIAL.has(code));
    if (outcome.fatal && retried) {
      outcome.reason = `refused for now: ${outcome.fatal.message}`;
    } else if (outcome.fatal) {
      log(`craits-js-bot: the referee ended the connection: ${outcome.fatal.message}`);
      // A referee shutting down says so with an Error: that is the normal end of the stream.
      return code === 'ERROR_CODE_SHUTDOWN' ? EXIT_OK : EXIT_REFUSED;
    }
    failures = session.welcomed ? 0 : failures + 1;
    if (failures >= ATTEMPTS) {
      log(`craits-js-bot: referee at ${server} unreachable (${outcome.reason}); ` +
        `giving up after ${failures} failed dials`);
      return EXIT_UNREACHABLE;
    }
    const delay = Math.min(MAX_BACKOFF_MS, BACKOFF_MS * 2 ** (failures + everWelcomed - 1));
    log(`craits-js-bot: stream lost (${outcome.reason}); reconnecting in ${delay} ms`);
    await sleep(delay);
  }
}

async function main() {
  const server = process.env.CRAITS_SERVER;
  const token = process.env.CRAITS_TOKEN;
  if (!server || !token) {
    log('craits-js-bot: set CRAITS_SERVER (host:port) and CRAITS_TOKEN');
    return EXIT_REFUSED;
  }
  return serve(server, token);
}

if (require.main === module) {
  main().then(
    (status) => process.exit(status),
    (err) => {
      log(`craits-js-bot: ${err && err.stack ? err.stack : err}`);
      process.exit(1);
    },
  );
}

module.exports = {
  LOADER_OPTIONS, PROTO_FILE, PROTO_ROOT, connectOnce, dialTarget, isThisMachine,
  loadRefereeClient, plaintextRefusal,
};
