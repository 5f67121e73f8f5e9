"""A bot written against the raw protocol (no SDK), with switchable misbehaviour, for tests.

Run as a process: ``python rawbot.py MODE [--capture FILE]``; reads CRAITS_SERVER/CRAITS_TOKEN.
Modes: ``good`` (first legal move), ``slow`` (sleeps past the limit on some decisions),
``illegal`` (always an illegal move), ``garbage`` (malformed replies), ``flaky`` (one bad reply
then a good one), ``crash`` (exits mid-game), ``reconnect`` (drops its stream once mid-game and
dials again with the same token). ``--capture`` appends every received packet, base64-encoded,
one per line, so tests can inspect exactly what crossed the wire.
"""

from __future__ import annotations

import argparse
import base64
import os
import queue
import sys
import time
from collections.abc import Iterator

import grpc

from craits.v1 import referee_pb2 as pb
from craits.v1 import referee_pb2_grpc as pb_grpc

_END = object()


def _requests(q: queue.Queue[object]) -> Iterator[pb.BotPacket]:
    while True:
        item = q.get()
        if item is _END:
            return
        assert isinstance(item, pb.BotPacket)
        yield item


def _reply(
    req: pb.DecisionRequest, mode: str, count: int, state: dict[str, int]
) -> list[pb.BotMessage]:
    good = pb.MoveReply(game_id=req.game_id, decision_id=req.decision_id, legal_index=0)
    if mode == "illegal":
        held = {(c.rank, c.suit) for c in req.observation.hand}
        rank, suit = next((r, s) for r in range(1, 14) for s in range(1, 5) if (r, s) not in held)
        card = pb.Card(rank=pb.Rank.ValueType(rank), suit=pb.Suit.ValueType(suit))
        move = pb.Move(kind=pb.MOVE_KIND_PLAY, card=card)
        bad = pb.MoveReply(game_id=req.game_id, decision_id=req.decision_id, move=move)
        return [pb.BotMessage(move=bad)]
    if mode == "garbage":
        bad = pb.MoveReply(game_id=req.game_id, decision_id=req.decision_id)
        return [pb.BotMessage(move=bad)]
    if mode == "flaky" and state.get(f"{req.game_id}:{req.decision_id}", 0) == 0:
        state[f"{req.game_id}:{req.decision_id}"] = 1
        bad = pb.MoveReply(game_id=req.game_id, decision_id=req.decision_id, legal_index=999)
        return [pb.BotMessage(move=bad)]
    if mode == "slow" and count % 10 == 3:
        time.sleep(float(os.environ.get("RAWBOT_SLEEP", "0.3")))
    return [pb.BotMessage(move=good)]


def session(mode: str, capture: str | None, state: dict[str, int]) -> str:
    """One stream; returns why it ended: 'done', 'drop' (reconnect wanted) or 'error'."""
    channel = grpc.insecure_channel(os.environ["CRAITS_SERVER"])
    stub = pb_grpc.RefereeStub(channel)
    q: queue.Queue[object] = queue.Queue()
    hello = pb.Hello(protocol_version=pb.PROTOCOL_VERSION_1, token=os.environ["CRAITS_TOKEN"])
    q.put(pb.BotPacket(messages=[pb.BotMessage(hello=hello)]))
    out = open(capture, "a") if capture else None  # noqa: SIM115 (closed in finally)
    pending: dict[tuple[str, int], pb.DecisionRequest] = {}
    try:
        for packet in stub.Connect(_requests(q)):
            if out:
                out.write(base64.b64encode(packet.SerializeToString()).decode() + "\n")
                out.flush()
            replies: list[pb.BotMessage] = []
            for msg in packet.messages:
                case = msg.WhichOneof("payload")
                if case == "error":
                    return "done" if msg.error.code == pb.ERROR_CODE_SHUTDOWN else "error"
                if case == "rejected" and msg.rejected.retries_left > 0:
                    open_req = pending.get((msg.rejected.game_id, msg.rejected.decision_id))
                    if open_req is not None:
                        replies += _reply(open_req, mode, state.get("count", 0), state)
                if case == "decision":
                    pending[(msg.decision.game_id, msg.decision.decision_id)] = msg.decision
                    state["count"] = state.get("count", 0) + 1
                    count = state["count"]
                    if mode == "crash" and count == 25:
                        os._exit(3)
                    if mode == "reconnect" and count == 20 and not state.get("dropped"):
                        state["dropped"] = 1
                        return "drop"
                    replies += _reply(msg.decision, mode, count, state)
                if case == "game_end":
                    state["ended"] = state.get("ended", 0) + 1
            if replies:
                q.put(pb.BotPacket(messages=replies))
    except grpc.RpcError:
        return "drop"
    finally:
        q.put(_END)
        channel.close()
        if out:
            out.close()
    return "done"


def main() -> int:
    parser = argparse.ArgumentParser()
    parser.add_argument("mode")
    parser.add_argument("--capture")
    args = parser.parse_args()
    state: dict[str, int] = {}
    for _ in range(5):
        why = session(args.mode, args.capture, state)
        if why == "error":
            return 2
        if why == "done":
            return 0
        time.sleep(0.2)
    return 1


if __name__ == "__main__":
    sys.exit(main())
