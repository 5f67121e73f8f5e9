"""The hub's in-band rejections, through a real ``BotHub`` and ``play_game``.

The fake session stands in for the gRPC stream (as in ``benchmarks/referee_cpu_bench.py``): it
answers each decision request right after the hub has filled it, with ``stray`` replies first.
"""

from __future__ import annotations

from collections.abc import Callable

import trio

from craits.engine import preset
from craits.protocol import PROTOCOL_VERSION
from craits.referee.game import GameSpec, PlayedGame, play_game
from craits.referee.hub import BotEntry, BotHub, Session
from craits.v1 import referee_pb2 as pb

Stray = Callable[[pb.DecisionRequest], list[tuple[int, int]]]
"""The (decision id, legal index) of the bad replies a bot sends before it answers a request
properly (with its decision id and legal index 0)."""


def _connect(hub: BotHub, entry: BotEntry, stray: Stray, seen: list[pb.MoveRejected]) -> None:
    token = trio.lowlevel.current_trio_token()
    holder: list[Session] = []

    def reply(req: pb.DecisionRequest, decision_id: int, index: int = 0) -> pb.BotMessage:
        return pb.BotMessage(move=pb.MoveReply(
            game_id=req.game_id, decision_id=decision_id, legal_index=index,
        ))

    def answer(msg: pb.RefereeMessage) -> None:
        case = msg.WhichOneof("payload")
        if case == "rejected":
            seen.append(msg.rejected)
        elif case == "decision":
            req = msg.decision
            replies = [reply(req, *bad) for bad in stray(req)] + [reply(req, req.decision_id)]
            hub.on_packet(holder[0], pb.BotPacket(messages=replies))

    def compose() -> pb.RefereeMessage:
        msg = pb.RefereeMessage()
        token.run_sync_soon(answer, msg)
        return msg

    holder.append(hub.on_open(compose, lambda: None))
    hub.on_packet(holder[0], pb.BotPacket(messages=[pb.BotMessage(hello=pb.Hello(
        protocol_version=PROTOCOL_VERSION, token=entry.token,
    ))]))


def _play(stray: Stray) -> tuple[PlayedGame, list[pb.MoveRejected]]:
    """One 2-player game; seat 0's bot sends ``stray`` replies, seat 1's none."""
    seen: list[pb.MoveRejected] = []

    async def main() -> PlayedGame:
        hub = BotHub()
        entries = [hub.issue_token("stray"), hub.issue_token("plain")]
        _connect(hub, entries[0], stray, seen)
        _connect(hub, entries[1], lambda _: [], [])
        spec = GameSpec("g", preset("standard"), 7)
        return await play_game(spec, [hub.seat_for(e) for e in entries])

    return trio.run(main), seen


def test_a_late_reply_is_refused_with_no_retries_and_costs_nothing() -> None:
    """A rejection naming a closed decision must not invite a resend: its retries_left is 0
    (it used to carry the open decision's count, and bots that follow docs/protocol.md
    resent to the closed decision again and again)."""
    result, seen = _play(lambda req: [(req.decision_id - 1, 0)] if req.decision_id > 2 else [])
    assert len(seen) > 10
    assert all(r.retries_left == 0 and "late reply ignored" in r.reason for r in seen)
    assert result.faults == []


def test_a_reply_naming_an_unasked_decision_counts_against_the_open_one() -> None:
    """An id from the future is refused (retries_left 0: that decision is not open) and counts
    as a bad reply for the open decision: one per decision stays within ``max_retries``, two
    more than it (three per decision) end in a strike each time."""
    result, seen = _play(lambda req: [(req.decision_id + 1_000, 0)])
    assert seen and all(r.retries_left == 0 and "is not open" in r.reason for r in seen)
    assert result.faults == []

    result, seen = _play(lambda req: [(req.decision_id + 1_000, 0)] * 3)
    assert all(r.retries_left == 0 for r in seen)
    assert [f.kind for f in result.faults][:3] == ["bad_replies"] * 3
    assert result.forfeited == (True, False)


def test_a_bad_reply_to_the_open_decision_says_how_many_retries_remain() -> None:
    """The count is the open decision's when the rejection names it: of its three replies
    considered (``max_retries`` 2, plus one), two are left after the first bad one, then one."""
    result, seen = _play(lambda req: [(req.decision_id, 99)] * 2 if req.decision_id % 4 else [])
    assert len(seen) > 10 and [r.retries_left for r in seen] == [2, 1] * (len(seen) // 2)
    assert result.faults == []
