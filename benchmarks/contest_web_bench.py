"""The contest's pages under a bounded load of readers on loopback, while games are played.

Usage: ``.venv/bin/python benchmarks/contest_web_bench.py [--pollers 200] [--watchers 50]
[--seconds 20] [--poll-s 1.0] [--move-ms 1]``

Two runs, each against a fresh contest served by a child process (``craits contest serve``'s
own ``serve_contest``, Hypercorn's trio worker, a real SQLite store) that plays games without
pause beside the server: the referee's ``play_game`` between random in-process seats that
take ``--move-ms`` a move (as a quick bot does; a game then lasts about a second), watched
by the contest's ``LiveGames`` and recorded and published as the ladder does (the sandboxed
bots are left out: they cost the same with or without readers, and would hide the pages' cost
in their start-up). The first run has no readers; the second has ``--pollers`` clients each
fetching the leaderboard every ``--poll-s`` seconds and ``--watchers`` clients each following a
live game's stream to its end, then the next. Printed: the page latencies (median, p99, max),
the steps the watchers received, games per second with and without readers, and the server's
resident memory at the start and the end of each run. The readers run here, in one trio loop
(httpx), the server in its own process: they do not share a GIL.
"""

from __future__ import annotations

import argparse
import random
import statistics
import subprocess
import sys
import tempfile
import time
from pathlib import Path

import httpx
import trio

HERE = Path(__file__).resolve()


# ---- the server's side (the child process) --------------------------------------------------


def serve(directory: Path, move_s: float) -> None:
    """Serve the contest in ``directory`` and play games in it until killed."""
    from craits.contest.service import Listen, open_contest, serve_contest

    contest = open_contest(directory)

    async def main() -> None:
        async with trio.open_nursery() as nursery:
            nursery.start_soon(serve_contest, contest, Listen("127.0.0.1", 0),
                               lambda urls: print(urls[0], flush=True))
            nursery.start_soon(play_forever, contest, move_s)

    trio.run(main)


async def play_forever(contest: object, move_s: float) -> None:
    """Games one after another, each watched live, recorded and the board republished."""
    from craits.contest.api import Contest
    from craits.contest.board import board_rows
    from craits.contest.ladderstore import (
        claim_table,
        finish_table,
        game_at,
        publish_board,
        record_game,
        scored_games,
    )
    from craits.engine import Move, Rules
    from craits.referee.game import GameSpec, play_game
    from craits.referee.seats import Decision, InProcessSeat
    from craits.tournament.store.game_records import FinishedGame, PlayLog

    assert isinstance(contest, Contest)

    class Thinking(InProcessSeat):
        """A random player that thinks ``move_s`` a move, as a quick bot does."""

        async def decide(self, decision: Decision) -> Move:
            await trio.sleep(move_s)
            return await super().decide(decision)

    store = contest.store
    versions = [v for c in store.contestants() for v in store.playing_versions(c.id, 1)]
    names = [f"{c.name} v1" for c in store.contestants()]
    rules = Rules(short_game=True)
    rng = random.Random(1)
    for seed in range(1_000_000):
        table = claim_table(store, [v.id for v in versions], "bench", time.time())
        key = f"{table.id}-0"
        seats = [Thinking(n, lambda obs, r: rng.choice(obs.legal_moves)) for n in names]
        started = time.time()
        result = await play_game(GameSpec(f"g{table.id}", rules, seed), seats,
                                 watch=contest.live.start(key, names))
        finished = FinishedGame("contest", 0, result.totals, result.places, result.strikes,
                                result.forfeited, started, time.time(),
                                PlayLog.of(result.moves, result.faults),
                                {"hands_played": result.outcome.hands_played})
        record_game(store, table.id, 0, [v.id for v in versions], finished, f"g{table.id}",
                    time.time(), (seed, rules.to_json()))
        finish_table(store, table.id, time.time())
        contest.live.end(key, game_at(store, table.id, 0))
        rows = await trio.to_thread.run_sync(board_rows, scored_games(store), versions,
                                             store.contestants(), 4)
        publish_board(store, rows, time.time())
        await trio.sleep(0)


def make(directory: Path) -> None:
    """A contest of three rated versions."""
    from craits.contest.store import ContestStore, NewVersion
    from craits.contest.template import contest_toml
    from craits.contest.tokens import new_token, token_digest
    from craits.contest.versions import VersionState

    directory.mkdir(parents=True)
    (directory / "contest.toml").write_text(contest_toml("Bench cup"))
    store = ContestStore.open(directory / "contest.db")
    for name in ("alice", "bob", "carol"):
        contestant = store.add_contestant(name, token_digest(new_token()), 0.0)
        version, _ = store.record_upload(contestant.id, NewVersion(
            name * 8, "bot.py", "python bot.py", "python", 1, 10), time.time())
        store.set_state(version.id, VersionState.RATED, time.time())
    store.close()


# ---- the readers' side (this process) -------------------------------------------------------


class Tally:
    """What the readers measured."""

    def __init__(self) -> None:
        self.latencies: list[float] = []
        self.steps = 0
        self.streams = 0
        self.errors = 0


async def poller(client: httpx.AsyncClient, tally: Tally, poll_s: float, until: float) -> None:
    """A contestant keeping the leaderboard open without scripts: a fetch every ``poll_s``."""
    await trio.sleep(random.random() * poll_s)  # spread the first requests
    while trio.current_time() < until:
        t = time.perf_counter()
        try:
            response = await client.get("/")
            response.raise_for_status()
            tally.latencies.append(time.perf_counter() - t)
        except httpx.HTTPError:
            tally.errors += 1
        await trio.sleep(poll_s)


async def watcher(client: httpx.AsyncClient, tally: Tally, until: float) -> None:
    """A spectator on "TV": the live list, then one game's stream to its end, then again."""
    while trio.current_time() < until:
        t = time.perf_counter()
        listing = (await client.get("/live")).text
        tally.latencies.append(time.perf_counter() - t)
        if 'href="/live/' not in listing:
            await trio.sleep(0.05)
            continue
        key = listing.split('href="/live/')[1].split('"')[0]
        try:
            async with client.stream("GET", f"/live/{key}/events") as response:
                tally.streams += 1
                async for line in response.aiter_lines():
                    if line.startswith("data: ["):
                        tally.steps += line.count('"i": ')
                    elif line.startswith("event: end") or trio.current_time() >= until:
                        break
        except httpx.HTTPError:
            tally.errors += 1


def rss_kb(pid: int) -> int:
    """The server's resident memory, to see it stay flat under readers."""
    for line in Path(f"/proc/{pid}/status").read_text().splitlines():
        if line.startswith("VmRSS:"):
            return int(line.split()[1])
    return 0


def games_of(directory: Path) -> int:
    """Games recorded so far, read from the store itself (games/s, with and without readers)."""
    import sqlite3

    with sqlite3.connect(directory / "contest.db") as db:
        count: int = db.execute("SELECT COUNT(*) FROM games").fetchone()[0]
    return count


def run(pollers: int, watchers: int, seconds: float, poll_s: float, move_ms: float
        ) -> dict[str, float]:
    """One run against a fresh served contest; its measures."""
    with tempfile.TemporaryDirectory() as tmp:
        directory = Path(tmp) / "cup"
        make(directory)
        child = subprocess.Popen([sys.executable, str(HERE), "--serve", str(directory),
                                  "--move-ms", str(move_ms)],
                                 stdout=subprocess.PIPE, text=True)
        try:
            assert child.stdout is not None
            url = child.stdout.readline().strip()
            time.sleep(1.0)  # warm up: the first games and board
            rss0, games0, t0 = rss_kb(child.pid), games_of(directory), time.perf_counter()
            tally = Tally()

            async def main() -> None:
                until = trio.current_time() + seconds
                limits = httpx.Limits(max_connections=pollers + watchers + 10)
                async with (httpx.AsyncClient(base_url=url, timeout=30, limits=limits)
                            as client, trio.open_nursery() as nursery):
                    for _ in range(pollers):
                        nursery.start_soon(poller, client, tally, poll_s, until)
                    for _ in range(watchers):
                        nursery.start_soon(watcher, client, tally, until)
                    await trio.sleep(seconds)

            trio.run(main)
            elapsed = time.perf_counter() - t0
            games = games_of(directory) - games0
            rss1 = rss_kb(child.pid)
        finally:
            child.kill()
            child.wait()
    lat = sorted(tally.latencies) or [0.0]
    return {"games_per_s": games / elapsed, "requests": len(tally.latencies),
            "median_ms": statistics.median(lat) * 1000,
            "p99_ms": lat[min(len(lat) - 1, int(len(lat) * 0.99))] * 1000,
            "max_ms": lat[-1] * 1000, "steps": tally.steps, "streams": tally.streams,
            "errors": tally.errors, "rss_start_mb": rss0 / 1024, "rss_end_mb": rss1 / 1024}


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    parser.add_argument("--pollers", type=int, default=200)
    parser.add_argument("--watchers", type=int, default=50)
    parser.add_argument("--seconds", type=float, default=20.0)
    parser.add_argument("--poll-s", type=float, default=1.0)
    parser.add_argument("--move-ms", type=float, default=1.0)
    parser.add_argument("--serve", type=Path, help=argparse.SUPPRESS)
    args = parser.parse_args()
    if args.serve is not None:
        serve(args.serve, args.move_ms / 1000)
        return
    quiet = run(0, 0, args.seconds, args.poll_s, args.move_ms)
    loaded = run(args.pollers, args.watchers, args.seconds, args.poll_s, args.move_ms)
    print(f"without readers: {quiet['games_per_s']:.2f} games/s, server RSS "
          f"{quiet['rss_start_mb']:.0f} -> {quiet['rss_end_mb']:.0f} MB")
    print(f"with {args.pollers} pollers (every {args.poll_s:g} s) and {args.watchers} "
          f"watchers, {args.seconds:g} s: {loaded['games_per_s']:.2f} games/s "
          f"({loaded['games_per_s'] / quiet['games_per_s']:.0%} of without)")
    print(f"  page latency: median {loaded['median_ms']:.1f} ms, p99 {loaded['p99_ms']:.1f} ms, "
          f"max {loaded['max_ms']:.1f} ms over {loaded['requests']:.0f} requests, "
          f"{loaded['errors']:.0f} errors")
    print(f"  streams followed: {loaded['streams']:.0f}, steps received: "
          f"{loaded['steps']:.0f}")
    print(f"  server RSS {loaded['rss_start_mb']:.0f} -> {loaded['rss_end_mb']:.0f} MB")


if __name__ == "__main__":
    main()
