"""The referee's own CPU cost per decision, trio side only (no gRPC, no network, no bot process).

Usage: ``.venv/bin/python benchmarks/referee_cpu_bench.py [--games 20] [--runs 5] [--json]``

A real ``BotHub`` with two fake sessions (one per bot). A session's ``send`` answers every
``DecisionRequest`` at once, the way the gRPC bridge hands a packet over: with
``current_trio_token().run_sync_soon``, calling ``hub.on_packet`` with ``legal_index=0``. So each
decision runs the whole referee path — ``_Referee._turn``, the time limit, ``RemoteSeat.decide``,
``observe``, building the request, routing the reply (``on_packet`` -> ``deliver``), judging it,
``apply`` — and nothing else but the fake reply's construction, which is the same in every
version. ``--games`` two-player games are played through ``play_game``, either one after another
(1 table) or all at once (every table in one trio scheduler pass). CPU microseconds per decision
are measured with ``time.process_time``; the best of ``--runs`` runs is reported (noise only
adds). ``--serialize`` adds modes that also pay ``SerializeToString`` for every message sent, as
the gRPC thread does in the real referee.
"""

from __future__ import annotations

import argparse
import json
import time

import trio

from craits.engine import preset
from craits.protocol import PROTOCOL_VERSION
from craits.referee.game import GameSpec, play_game
from craits.referee.hub import BotEntry, BotHub, Session
from craits.v1 import referee_pb2 as pb


def _fake_session(hub: BotHub, entry: BotEntry, serialize: bool) -> Session:
    """A connected session that answers every decision request with legal_index 0 at once."""
    token = trio.lowlevel.current_trio_token()
    holder: list[Session] = []

    def answer(msg: pb.RefereeMessage) -> None:
        """Runs after the hub has filled ``msg``, as the stream's writer would."""
        if serialize:
            msg.SerializeToString()
        if msg.WhichOneof("payload") == "decision":
            req = msg.decision
            hub.on_packet(holder[0], pb.BotPacket(messages=[pb.BotMessage(move=pb.MoveReply(
                game_id=req.game_id, decision_id=req.decision_id, legal_index=0,
            ))]))

    def compose() -> pb.RefereeMessage:
        msg = pb.RefereeMessage()
        token.run_sync_soon(answer, msg)
        return msg

    session = hub.on_open(compose, lambda: None)
    holder.append(session)
    hub.on_packet(session, pb.BotPacket(messages=[pb.BotMessage(hello=pb.Hello(
        protocol_version=PROTOCOL_VERSION, token=entry.token,
    ))]))
    assert entry.session is session
    return session


async def _run(games: int, concurrent: bool, serialize: bool) -> tuple[int, float]:
    """(decisions, CPU seconds) for ``games`` games."""
    hub = BotHub()
    entries = [hub.issue_token(f"bot{i}") for i in range(2)]
    for entry in entries:
        _fake_session(hub, entry, serialize)
    decisions = 0

    async def one(g: int) -> None:
        nonlocal decisions
        spec = GameSpec(f"g{g}", preset("standard"), 1000 + g)
        result = await play_game(spec, [hub.seat_for(e) for e in entries])
        assert not result.faults, result.faults
        decisions += len(result.moves)

    started = time.process_time()
    if concurrent:
        async with trio.open_nursery() as nursery:
            for g in range(games):
                nursery.start_soon(one, g)
    else:
        for g in range(games):
            await one(g)
    return decisions, time.process_time() - started


def measure(games: int, runs: int, concurrent: bool, serialize: bool) -> dict[str, float]:
    """Best-of-``runs`` CPU microseconds per decision."""
    best = float("inf")
    decisions = 0
    for _ in range(runs):
        decisions, cpu = trio.run(_run, games, concurrent, serialize)
        best = min(best, cpu * 1e6 / decisions)
    return {"decisions": decisions, "cpu_us_per_decision": round(best, 1)}


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--games", type=int, default=20)
    parser.add_argument("--runs", type=int, default=5)
    parser.add_argument("--serialize", action="store_true", help="also the serializing modes")
    parser.add_argument("--json", action="store_true")
    args = parser.parse_args()
    if args.games < 1 or args.runs < 1:
        parser.error("--games and --runs must be at least 1")
    modes: list[tuple[str, bool, bool]] = [("1 table", False, False),
                                           (f"{args.games} tables", True, False)]
    if args.serialize:
        modes += [("1 table, serialize", False, True),
                  (f"{args.games} tables, serialize", True, True)]
    rows = []
    for name, concurrent, serialize in modes:
        rows.append({"mode": name, **measure(args.games, args.runs, concurrent, serialize)})
    if args.json:
        print(json.dumps(rows))
        return
    for r in rows:
        print(f"{r['mode']:>24}: {r['cpu_us_per_decision']:7.1f} µs/decision "
              f"({r['decisions']} decisions)")


if __name__ == "__main__":
    main()
