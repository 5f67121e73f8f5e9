"""The SDK's own cost per decision request, without the network: packets in, replies out.

Usage: ``.venv/bin/python benchmarks/sdk_bench.py [--games 20] [--players 2] [--repeat 5]
[--bots random greedy lowcard] [--profile FILE] [--json]``

Whole games are recorded first, every packet encoded exactly as the referee encodes it (the
request filled in place from the cached encodings, ``remote_seat``'s way), one seat's packets per
bot. Then each bundled bot's SDK ``Session`` handles every packet of its seat, as the connection
loop does after ``call.read()``: parsing the packet's bytes (which gRPC does before handing it
over), decoding into a ``View``, ``decide``, building the reply, and the reply packet's
serialization (which gRPC does after ``call.write``). Reported: CPU µs per decision, the best of
``--repeat`` passes (the machine is shared: the best pass is the least disturbed one), and the
same for parsing alone, which no SDK change can avoid.

To compare with other code, run it with that code's sources first on the path, e.g.
``PYTHONPATH=BASE/server:BASE/sdk:BASE/bots .venv/bin/python benchmarks/sdk_bench.py``;
``--profile FILE`` writes a cProfile of one extra pass of the first bot.
"""

from __future__ import annotations

import argparse
import cProfile
import json
import logging
import time
from collections.abc import Callable
from functools import partial

from craits.engine import Game, observe, preset
from craits.protocol import add_moves, fill_observation, rules_to_pb
from craits.v1 import referee_pb2 as pb
from craits_bots.registry import load
from craits_sdk import Session

Packets = list[bytes]


def record_games(games: int, players: int) -> list[Packets]:
    """Every seat's packets (encoded) for ``games`` games, moves the first legal one."""
    seats: list[Packets] = [[] for _ in range(players)]
    for number in range(games):
        game_id = f"g{number}"
        game = Game.new(preset("standard"), players, number + 1)
        for seat in range(players):
            seats[seat].append(_encoded(_game_start(game_id, game, seat)))
        sent, decision = [0] * players, 0
        while not game.is_over:
            seat, decision = game.to_act, decision + 1
            msg = pb.RefereeMessage()
            _fill_request(msg.decision, game, seat, sent[seat], game_id, decision)
            sent[seat] = len(game.events)
            seats[seat].append(_encoded(msg))
            game.apply(game.legal_moves()[0])
        for seat in range(players):
            end = pb.GameEnd(game_id=game_id, totals=[0] * players, places=[1] * players)
            seats[seat].append(_encoded(pb.RefereeMessage(game_end=end)))
    return seats


def _game_start(game_id: str, game: Game, seat: int) -> pb.RefereeMessage:
    players = [pb.Player(seat=s, name=f"bot{s}") for s in range(game.players)]
    start = pb.GameStart(game_id=game_id, seat=seat, players=players,
                         rules=rules_to_pb(game.rules))
    start.time_control.move_ms = 1000
    return pb.RefereeMessage(game_start=start)


def _fill_request(req: pb.DecisionRequest, game: Game, seat: int, since: int, game_id: str,
                  decision_id: int) -> None:
    """The request as ``remote_seat`` fills it."""
    obs = observe(game, seat, since)
    req.game_id, req.decision_id = game_id, decision_id
    fill_observation(req.observation, obs)
    add_moves(req, obs.legal_moves)
    req.move_ms, req.bank_ms = 1000, 10_000


def _encoded(msg: pb.RefereeMessage) -> bytes:
    return pb.RefereePacket(messages=[msg]).SerializeToString()


def handle_all(bot_name: str, seats: list[Packets]) -> int:
    """One pass: a fresh session per seat handles that seat's packets; returns decisions."""
    decisions = 0
    for packets in seats:
        session = Session(load(bot_name)(), logging.getLogger("sdk-bench"))
        for data in packets:
            replies = session.handle(pb.RefereePacket.FromString(data))
            if replies:
                pb.BotPacket(messages=replies).SerializeToString()
                decisions += len(replies)
    return decisions


def parse_all(seats: list[Packets]) -> None:
    """Parsing alone (gRPC's deserializer), for comparison."""
    for packets in seats:
        for data in packets:
            pb.RefereePacket.FromString(data)


def best_us(work: Callable[[], object], repeat: int, decisions: int) -> float:
    """The least CPU time of ``repeat`` runs of ``work``, in µs per decision."""
    best = float("inf")
    for _ in range(repeat):
        started = time.process_time()
        work()
        best = min(best, time.process_time() - started)
    return best * 1e6 / decisions


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--games", type=int, default=20)
    parser.add_argument("--players", type=int, default=2)
    parser.add_argument("--repeat", type=int, default=5)
    parser.add_argument("--bots", nargs="+", default=["random", "greedy", "lowcard"])
    parser.add_argument("--profile", help="write a cProfile of one pass of the first bot here")
    parser.add_argument("--json", action="store_true")
    args = parser.parse_args()
    if args.games < 1 or args.repeat < 1 or not 2 <= args.players <= 8:
        parser.error("--games and --repeat must be at least 1, --players from 2 to 8")
    seats = record_games(args.games, args.players)
    decisions = handle_all(args.bots[0], seats)  # also warms every cache up
    rows = [{"work": "parse only", "us_per_decision": round(
        best_us(lambda: parse_all(seats), args.repeat, decisions), 1)}]
    for bot in args.bots:
        us = best_us(partial(handle_all, bot, seats), args.repeat, decisions)
        rows.append({"work": f"{bot}: parse, view, decide, reply", "us_per_decision": round(us, 1)})
    if args.profile:
        cProfile.runctx("handle_all(bot, seats)", globals(),
                        {"handle_all": handle_all, "bot": args.bots[0], "seats": seats},
                        args.profile)
    if args.json:
        print(json.dumps({"decisions": decisions, "rows": rows}))
        return
    print(f"{decisions} decisions, {args.games} games of {args.players}; best of {args.repeat}")
    for row in rows:
        print(f"{row['work']:<40} {row['us_per_decision']:>7} µs/decision")


if __name__ == "__main__":
    main()
