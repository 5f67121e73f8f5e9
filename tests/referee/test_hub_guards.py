"""The hub against bots that misuse the stream: floods, streams that never say Hello, a second
stream with the same token. Real ``BotHub`` and ``play_game``; sessions record what they get.
Whole games run on virtual time (``MockClock``, the referee's clock too): the grace periods and
a bot's absences are then exact, whatever the machine's load."""

from __future__ import annotations

from collections.abc import Callable
from dataclasses import dataclass, field

import trio
import trio.testing

from craits.engine import preset
from craits.protocol import PROTOCOL_VERSION
from craits.referee import hub as hub_module
from craits.referee.game import GameSpec, PlayedGame, play_game
from craits.referee.hub import BotEntry, BotHub, Session
from craits.referee.policy import FailurePolicy
from craits.referee.remote_seat import INBOX_SIZE, Mailbox
from craits.v1 import referee_pb2 as pb


@dataclass
class Recorder:
    """A session's stream: every message composed on it, and whether it was closed."""

    messages: list[pb.RefereeMessage] = field(default_factory=list)
    closed: bool = False

    def compose(self) -> pb.RefereeMessage:
        self.messages.append(pb.RefereeMessage())
        return self.messages[-1]

    def close(self) -> None:
        self.closed = True

    def cases(self) -> list[str]:
        return [m.WhichOneof("payload") or "" for m in self.messages]

    def errors(self) -> list[int]:
        return [m.error.code for m in self.messages if m.HasField("error")]


def _hello(token: str) -> pb.BotPacket:
    return pb.BotPacket(messages=[pb.BotMessage(hello=pb.Hello(
        protocol_version=PROTOCOL_VERSION, token=token))])


def _open(hub: BotHub, peer: str = "") -> tuple[Session, Recorder]:
    rec = Recorder()
    return hub.on_open(rec.compose, rec.close, peer), rec


def test_a_flood_of_refused_replies_ends_the_stream_after_the_limit() -> None:
    async def main() -> Recorder:
        hub = BotHub()
        entry = hub.issue_token("flood")
        session, rec = _open(hub)
        hub.on_packet(session, _hello(entry.token))
        move = pb.BotMessage(move=pb.MoveReply(game_id="x" * 5_000, decision_id=1, text="y"))
        hub.on_packet(session, pb.BotPacket(messages=[move] * (hub_module._REFUSALS_PER_S + 500)))
        return rec

    rec = trio.run(main)
    assert rec.cases().count("rejected") == hub_module._REFUSALS_PER_S
    assert rec.errors() == [pb.ERROR_CODE_ABUSE] and rec.closed
    assert rec.cases()[-1] == "error"  # nothing handled after the stream was ended
    rejected = next(m.rejected for m in rec.messages if m.HasField("rejected"))
    assert len(rejected.game_id) == hub_module._ECHO_MAX  # the bot's input is not echoed whole
    assert len(rejected.reason) < 3 * hub_module._ECHO_MAX


def test_streams_that_never_say_hello_cannot_lock_a_bot_out() -> None:
    async def main() -> tuple[list[Recorder], Recorder]:
        hub = BotHub()
        entry = hub.issue_token("real")
        idle = [_open(hub)[1] for _ in range(hub_module._MAX_WAITING_HELLO + 3)]
        session, rec = _open(hub)
        hub.on_packet(session, _hello(entry.token))
        assert entry.session is session
        return idle, rec

    idle, rec = trio.run(main)
    assert [r.errors() for r in idle[:4]] == [[pb.ERROR_CODE_ABUSE]] * 4  # the oldest ended
    assert all(r.closed for r in idle[:4]) and not any(r.closed for r in idle[4:])
    assert rec.cases() == ["welcome"]


def test_wrong_tokens_from_an_address_are_held_to_one_a_second_after_a_burst() -> None:
    """The token bucket on the hub's clock: ``BAD_TOKEN_BURST`` wrong tokens heard at once, the
    next ones refused unread, one more a second later; another address and the Unix socket ("")
    are not held back, and the bot itself is welcome once the bucket has refilled."""
    time = [1000.0]

    def codes(hub: BotHub, token: str, peer: str, n: int = 1) -> list[int]:
        found = []
        for _ in range(n):
            session, rec = _open(hub, peer)
            hub.on_packet(session, _hello(token))
            found.append(rec.errors()[0] if rec.errors() else 0)
        return found

    async def main() -> list[list[int]]:
        hub = BotHub(now=lambda: time[0])
        entry = hub.issue_token("bot")
        seen = [codes(hub, "wrong", "10.0.0.1", hub_module.BAD_TOKEN_BURST + 2),
                codes(hub, "wrong", "192.0.2.7"), codes(hub, "wrong", "", 20)]
        time[0] += 0.9 / hub_module.BAD_TOKENS_PER_S
        seen.append(codes(hub, "wrong", "10.0.0.1"))
        time[0] += 0.1 / hub_module.BAD_TOKENS_PER_S
        seen.append(codes(hub, "wrong", "10.0.0.1", 2))
        time[0] += 1 / hub_module.BAD_TOKENS_PER_S
        seen.append(codes(hub, entry.token, "10.0.0.1"))
        return seen

    bad, abuse = pb.ERROR_CODE_BAD_TOKEN, pb.ERROR_CODE_ABUSE
    assert trio.run(main) == [[bad] * hub_module.BAD_TOKEN_BURST + [abuse] * 2,
                              [bad], [bad] * 20, [abuse], [bad, abuse], [0]]


def test_another_protocol_version_is_refused_naming_the_one_spoken() -> None:
    async def main() -> tuple[BotEntry, Recorder]:
        hub = BotHub()
        entry = hub.issue_token("old")
        session, rec = _open(hub)
        hub.on_packet(session, pb.BotPacket(messages=[pb.BotMessage(hello=pb.Hello(
            protocol_version=pb.ProtocolVersion.ValueType(PROTOCOL_VERSION + 1),
            token=entry.token))]))
        return entry, rec

    entry, rec = trio.run(main)
    assert rec.errors() == [pb.ERROR_CODE_UNSUPPORTED_VERSION] and rec.closed
    assert rec.messages[-1].error.message.endswith(f"this referee speaks {PROTOCOL_VERSION}")
    assert entry.session is None


def test_a_replaced_stream_is_told_so_and_ignored_afterwards() -> None:
    async def main() -> tuple[Recorder, Recorder]:
        hub = BotHub()
        entry = hub.issue_token("bot")
        old, old_rec = _open(hub)
        hub.on_packet(old, _hello(entry.token))
        new, new_rec = _open(hub)
        hub.on_packet(new, _hello(entry.token))
        hub.on_packet(old, pb.BotPacket(messages=[pb.BotMessage(move=pb.MoveReply(game_id="g"))]))
        return old_rec, new_rec

    old_rec, new_rec = trio.run(main)
    assert old_rec.cases() == ["welcome", "error"] and old_rec.closed
    assert old_rec.errors() == [pb.ERROR_CODE_REPLACED]
    assert new_rec.cases() == ["welcome"] and not new_rec.closed


Answer = Callable[[pb.DecisionRequest, int], list[pb.BotMessage] | None]
"""What a scripted bot sends for a request (None: nothing), given how many it has seen."""


class ScriptedBot:
    """A bot's process: its current stream answers each decision request after the hub filled
    it; ``reconnect`` opens a new stream with the same token, as a bot that re-dials does."""

    def __init__(self, hub: BotHub, entry: BotEntry, answer: Answer) -> None:
        self.hub, self.entry, self.answer = hub, entry, answer
        self.token = trio.lowlevel.current_trio_token()
        self.streams: list[list[pb.RefereeMessage]] = []
        self.seen = 0
        self.session: Session | None = None
        self.reconnect()

    def reconnect(self) -> None:
        sent: list[pb.RefereeMessage] = []
        self.streams.append(sent)

        def compose() -> pb.RefereeMessage:
            msg = pb.RefereeMessage()
            sent.append(msg)
            self.token.run_sync_soon(self._handle, session, msg)
            return msg

        session = self.hub.on_open(compose, lambda: None)
        self.session = session
        self.hub.on_packet(session, _hello(self.entry.token))

    def _handle(self, session: Session, msg: pb.RefereeMessage) -> None:
        if session is not self.session or not msg.HasField("decision"):
            return
        self.seen += 1
        replies = self.answer(msg.decision, self.seen)
        if replies is not None:
            self.hub.on_packet(session, pb.BotPacket(messages=replies))


def _reply(req: pb.DecisionRequest, decision_id: int | None = None) -> pb.BotMessage:
    return pb.BotMessage(move=pb.MoveReply(
        game_id=req.game_id, decision_id=req.decision_id if decision_id is None else decision_id,
        legal_index=0))


def _game(answer: Callable[[ScriptedBot], Answer], policy: FailurePolicy | None = None
          ) -> tuple[PlayedGame, ScriptedBot]:
    """A 2-player game: seat 0 scripted by ``answer``, seat 1 always answering at once."""
    holder: list[ScriptedBot] = []

    async def main() -> PlayedGame:
        hub = BotHub()
        entries = [hub.issue_token("scripted"), hub.issue_token("plain")]
        holder.append(ScriptedBot(hub, entries[0], lambda r, n: answer(holder[0])(r, n)))
        ScriptedBot(hub, entries[1], lambda req, _: [_reply(req)])
        spec = GameSpec("g", preset("standard"), 3, policy=policy or FailurePolicy())
        with trio.fail_after(20):
            return await play_game(spec, [hub.seat_for(e) for e in entries],
                                   now=trio.current_time)

    return trio.run(main, clock=trio.testing.MockClock(autojump_threshold=0)), holder[0]


def test_a_new_stream_taking_over_mid_decision_gets_the_open_request_again() -> None:
    """The bot re-dials instead of answering its 5th request: the new stream gets GameStart
    and that same decision, with the history from event 0, and the game goes on unpunished
    (the old stream is still open when the new one says Hello)."""
    asked: list[pb.DecisionRequest] = []

    def answer(bot: ScriptedBot) -> Answer:
        def respond(req: pb.DecisionRequest, seen: int) -> list[pb.BotMessage] | None:
            asked.append(req)
            if seen == 5:
                bot.reconnect()
                return None
            return [_reply(req)]
        return respond

    result, bot = _game(answer)
    assert result.faults == []
    assert len(bot.streams) == 2
    second = [m.WhichOneof("payload") for m in bot.streams[1]]
    assert second[:3] == ["welcome", "game_start", "decision"]
    again = bot.streams[1][2].decision
    assert again.decision_id == asked[4].decision_id
    assert again.observation.events[0].index == 0


def test_many_stale_replies_before_the_good_one_do_not_crowd_it_out() -> None:
    """Seventy replies naming older decisions, then the right one, in one packet: the stale
    ones are refused at once (uncounted), so the inbox never fills and the good reply counts."""
    def answer(_: ScriptedBot) -> Answer:
        def respond(req: pb.DecisionRequest, seen: int) -> list[pb.BotMessage]:
            stale = [_reply(req, max(1, req.decision_id - 2))] * 70 if seen == 6 else []
            return [*stale, _reply(req)]
        return respond

    result, bot = _game(answer)
    assert result.faults == []
    refused = [m.rejected for m in bot.streams[0] if m.HasField("rejected")]
    assert len(refused) == 70 and all(r.retries_left == 0 for r in refused)


def _dropping_game(grace_ms: int) -> PlayedGame:
    """Seat 0's bot drops its stream at its 3rd and 6th requests and dials again 0.2 s later."""
    async def main() -> PlayedGame:
        hub = BotHub()
        entries = [hub.issue_token("dropper"), hub.issue_token("plain")]

        async def back_later(bot: ScriptedBot) -> None:
            await trio.sleep(0.2)
            bot.reconnect()

        def answer(req: pb.DecisionRequest, seen: int) -> list[pb.BotMessage] | None:
            if seen in (3, 6):
                assert dropper.session is not None
                hub.on_close(dropper.session)
                trio.lowlevel.spawn_system_task(back_later, dropper)
                return None
            return [_reply(req)]

        dropper = ScriptedBot(hub, entries[0], answer)
        ScriptedBot(hub, entries[1], lambda req, _: [_reply(req)])
        spec = GameSpec("g", preset("standard"), 3, policy=FailurePolicy(grace_ms=grace_ms))
        with trio.fail_after(20):
            return await play_game(spec, [hub.seat_for(e) for e in entries],
                                   now=trio.current_time)

    return trio.run(main, clock=trio.testing.MockClock(autojump_threshold=0))


def test_the_grace_period_is_a_total_for_the_game_not_per_disconnection() -> None:
    """Two absences of 0.2 s: within a 1 s grace period; with 0.3 s, the second one outlasts
    what is left (0.1 s) and the seat forfeits, so dropping and returning cannot stall a table
    again and again."""
    assert _dropping_game(1000).faults == []
    faults = _dropping_game(300).faults
    assert [(f.seat, f.kind, f.forfeit) for f in faults] == [(0, "disconnect", True)]


def test_a_stream_ended_for_abuse_leaves_its_seat_away_not_timing_out() -> None:
    """After ``ERROR_CODE_ABUSE`` the bot is detached at once: its seat waits out the grace
    period like any bot that is away (then forfeits), and no request follows the ``Error``."""
    def answer(_: ScriptedBot) -> Answer:
        def respond(req: pb.DecisionRequest, seen: int) -> list[pb.BotMessage]:
            bogus = pb.BotMessage(move=pb.MoveReply(game_id="no such game", legal_index=0))
            flood = [bogus] * (hub_module._REFUSALS_PER_S + 1) if seen == 3 else []
            return [*flood, _reply(req)]
        return respond

    result, bot = _game(answer, FailurePolicy(grace_ms=200))
    assert [(f.seat, f.kind, f.forfeit) for f in result.faults] == [(0, "disconnect", True)]
    cases = [m.WhichOneof("payload") for m in bot.streams[0]]
    assert cases[-1] == "error" and bot.streams[0][-1].error.code == pb.ERROR_CODE_ABUSE


def test_a_full_inbox_still_takes_the_disconnect_marker() -> None:
    """Replies beyond the cap are refused, but the marker that wakes a waiting decision when its
    bot's stream changes must never be lost with them."""
    inbox = Mailbox()
    reply = pb.MoveReply(game_id="g", decision_id=1)
    assert all(inbox.put(reply) for _ in range(INBOX_SIZE))
    assert not inbox.put(reply)
    assert inbox.put(None)

    async def last() -> pb.MoveReply | None:
        for _ in range(INBOX_SIZE):
            await inbox.get()
        return await inbox.get()

    assert trio.run(last) is None
