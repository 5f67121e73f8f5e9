"""``craits tournament run --web``: a tournament's pages while it plays, from a real process.

``craits`` runs as a user starts it, with its pages on a free port (``--web 127.0.0.1:0``) and a
bot that thinks a few milliseconds a move, so that games are being played while the test reads:
the standings over HTTP while the run goes on and after it, a finished game held back while the
other seating of its deal is still to be played, a live game's stream read by a raw client
(as a contestant's program could) with no hidden card before the end (the contest's own check,
``test_live_hidden``), and the standings page in headless Chromium updating by itself; the
same with two worker processes, whose games' public events reach the live stream whole.
"""

from __future__ import annotations

import signal
import socket
import threading
import time
import tomllib
from collections.abc import Callable, Iterator
from dataclasses import dataclass, field
from pathlib import Path

import httpx
import pytest
import trio

from craits.cli.tournament_web import web_address
from craits.contest.live import SPECTATOR, LiveGames
from craits.contest.service import Listen
from craits.contest.web.tournament import LiveWatch, StandingsReader
from craits.engine import Event, Game, Rules
from craits.tournament.plan.config import config_from_dict
from craits.tournament.plan.schedule import build_schedule
from craits.tournament.store.database import Store
from craits.tournament.store.game_records import rebuild
from craits.tournament.store.record_codec import decode
from tests.contest.web.browser import Browser, shots
from tests.hidden_cards import hidden_forms, leaks
from tests.live_streams import read_stream
from tests.waiting import wait_until

from .helpers import TINY, Runner, Ticks, WebRun, WebRuns

PACED_BOT = """
import time

from craits_bots.greedy import GreedyBot


class Paced(GreedyBot):
    \"\"\"Greedy, a few milliseconds a move: games last long enough to be watched.\"\"\"

    def decide(self, view):
        time.sleep(0.004)
        return super().decide(view)
"""

CUP = """
name = "web cup"
table_size = 2
deal_sets = 1
concurrency = 1
[rules]
short_game = true
[[bots]]
name = "paced"
command = "python3 -m craits_sdk run pacedbot:Paced"
dir = "."
[[bots]]
name = "lowcard"
"""
GAMES = 2  # one meeting x 2 seatings x 1 deal set


@dataclass
class Run(WebRun):
    """A ``craits tournament run --web`` process, and its results database."""

    db: Path = field(kw_only=True)


@pytest.fixture
def start_web(tmp_path: Path) -> Iterator[Callable[..., Run]]:
    """Start the cup with its pages kept up after the end (``--web-linger``) and ``extra``
    options; each run still going at the end of the test is ended with Ctrl-C."""
    (tmp_path / "pacedbot.py").write_text(PACED_BOT)
    (tmp_path / "cup.toml").write_text(CUP)
    db = tmp_path / "results.sqlite"
    runs = WebRuns(lambda proc: Run(proc, db=db), tmp_path)
    yield lambda *extra: runs.start(
        ["tournament", "run", "cup.toml", "--db", str(db), "--quiet", "--web", "127.0.0.1:0",
         "--web-linger", *extra])
    runs.close()


def full_events(db: Path, index: int) -> list[Event]:
    """Every event of recorded game ``index``, hidden cards and all (the organiser's view)."""
    with Store.open(db, mode="read") as store:
        [info] = store.tournaments()
        job = store.job(info.id, index)
        row = store.game_record(info.id, index)
    assert job is not None and row is not None and row.record is not None
    return list(rebuild(Rules.from_json(job.rules_json), len(job.seats), job.seed,
                        decode(row.record)).game.events)


def seats_of(db: Path, index: int) -> tuple[str, ...]:
    """The bots at game ``index``'s seats."""
    with Store.open(db, mode="read") as store:
        [info] = store.tournaments()
        job = store.job(info.id, index)
    assert job is not None
    return job.seats


@pytest.mark.slow
def test_pages_while_the_tournament_plays(start_web: Callable[..., Run]) -> None:
    """Standings while it runs and after; a game held back while its deal is in play; a live
    game's stream and pages show no hidden card before its end; the end, Ctrl-C, standings."""
    web_run = start_web("--workers", "1")  # tables in the run process: live games shown
    url = web_run.url
    bodies: list[str] = []
    lines: list[str] = []
    steps: list[dict[str, object]] = []
    seen_running: list[int] = []
    with httpx.Client(base_url=url, timeout=30) as client:
        # game 1 is the second seating of game 0's deal: once it is listed, game 0 is recorded
        wait_until(lambda: 'href="/live/1"' in client.get("/live").text)
        held = client.get("/games/0")
        assert held.status_code == 200 and 'id="held"' in held.text
        reader = threading.Thread(target=read_stream, args=(f"{url}/live/1/events", lines,
                                                            steps))
        reader.start()
        while reader.is_alive():
            for path in ("/", "/standings.json", "/live", "/live/1", "/games/0"):
                response = client.get(path)
                if path == "/games/0" and 'id="held"' not in response.text:
                    continue  # game 1 is recorded: game 0 is shown whole, and so its deal
                bodies.append(response.text)
                if path == "/standings.json" and response.json()["status"] == "running":
                    seen_running.append(response.json()["done"])
            time.sleep(0.05)
        reader.join()
        whole = client.get("/games/1").text
        shown_0 = client.get("/games/0").text
        wait_until(lambda: web_run.said("the pages stay up until Ctrl-C"))
        final = client.get("/standings.json").json()
        wait_until(lambda: '<b id="status">finished</b>' in client.get("/").text)  # within 1 s
        page = client.get("/").text
        assert client.get("/games/99").status_code == 404

    forms = hidden_forms(full_events(web_run.db, 1), seats_of(web_run.db, 1))
    assert len(forms) > 10  # the deals and the draws of a whole game
    assert steps and [s["i"] for s in steps] == list(range(len(steps)))
    assert [line for line in lines if line.startswith("event: end")] == ["event: end"]
    assert any('id="held"' in body for body in bodies)  # read while game 1 played
    assert leaks(["\n".join(lines), *bodies], forms) == []
    assert leaks([whole], forms)  # once over, the game's page shows the whole hands
    assert "seed" in shown_0 and 'id="held"' not in shown_0  # its deal's seatings all played
    assert 'id="held"' in held.text and "seed" not in held.text
    assert seen_running and min(seen_running) < GAMES  # read while games were still to come
    assert final["status"] == "finished" and final["done"] == GAMES
    assert [row["games"] for row in final["rows"]] == [GAMES, GAMES]
    assert 'href="/games/1"' in page and 'href="/games/0"' in page

    web_run.proc.send_signal(signal.SIGINT)  # lingering: Ctrl-C ends it, as a normal end
    out, _ = web_run.proc.communicate(timeout=60)
    assert web_run.proc.returncode == 0, "".join(web_run.err)
    assert "paced" in out and "lowcard" in out  # the standings, as without --web


@pytest.mark.slow
def test_worker_processes_standings_in_a_browser_and_a_live_game(
        start_web: Callable[..., Run], tmp_path: Path) -> None:
    """Two worker processes play the games. Headless Chromium opens the standings while the
    first games are played; the page swaps in new standings by itself (the SSE script) as games
    finish, up to the last. Meanwhile a raw client follows a live game, whose public events the
    worker that plays it sends: every one of them, in order, and no hidden card."""
    web_run = start_web("--workers", "2", "--deal-sets", "2")  # two games in each worker
    games = 2 * GAMES
    browser = Browser(tmp_path / "profile")
    lines: list[str] = []
    steps: list[dict[str, object]] = []
    reader: threading.Thread | None = None
    try:
        browser.open(web_run.url + "/")  # first: the bots are still starting
        assert "Standings" in browser.text("main")
        assert int(browser.text("#done")) < games  # opened before the last game ended
        with httpx.Client(base_url=web_run.url, timeout=30) as client:
            wait_until(lambda: 'href="/live/' in client.get("/live").text)
            key = client.get("/live").text.split('href="/live/')[1].split('"')[0]
        reader = threading.Thread(target=read_stream, args=(
            f"{web_run.url}/live/{key}/events", lines, steps))
        reader.start()
        browser.wait_for(f"document.getElementById('done').innerText === '{games}'")
        # the stream's first event is the standings as loaded; each later one is a change
        assert browser.js("Number(document.body.dataset.standingsUpdates)") >= 2
        browser.wait_for("document.getElementById('status').innerText === 'finished'")
        assert browser.js("document.querySelectorAll('table.standings tbody tr').length") == 2
        assert browser.js("document.querySelectorAll('table.games tbody tr').length") == games
        browser.screenshot(shots(tmp_path) / "tournament-web.png")  # docs/tournaments.md's
        browser.open(web_run.url + "/games/0")  # the report's viewer, drawn by its script
        browser.wait_for("document.getElementById('pos').textContent.startsWith('step 0/')")
        browser.open(web_run.url + "/live")
        assert browser.text("#live-note") == ""  # workers' games are shown live too
        assert browser.csp_violations() == []  # the pages' own scripts and styles all ran
    finally:
        browser.close()
        if reader is not None:
            reader.join(timeout=60)
    full = full_events(web_run.db, int(key))
    assert [e for s in steps for e in s["events"]] == [  # type: ignore[attr-defined]
        e.seen_by(SPECTATOR).to_dict() for e in full]
    assert [line for line in lines if line.startswith("event: end")] == ["event: end"]
    forms = hidden_forms(full, seats_of(web_run.db, int(key)))
    assert len(forms) > 10 and leaks(["\n".join(lines)], forms) == []


def test_web_address() -> None:
    assert web_address("8080") == Listen("127.0.0.1", 8080)
    assert web_address("0.0.0.0:0") == Listen("0.0.0.0", 0)
    assert web_address("[::1]:9000") == Listen("::1", 9000)
    assert web_address(":9001") == Listen("127.0.0.1", 9001)


def test_linger_needs_web(cli: Runner, tmp_path: Path) -> None:
    (tmp_path / "tiny.toml").write_text(TINY)
    result = cli("tournament", "run", str(tmp_path / "tiny.toml"), "--db",
                 str(tmp_path / "r.sqlite"), "--web-linger")
    assert result.status == 2 and "--web-linger" in result.err and "--web" in result.err
    assert not (tmp_path / "r.sqlite").exists()


def test_a_busy_web_port_keeps_no_tournament(cli: Runner, tmp_path: Path) -> None:
    (tmp_path / "tiny.toml").write_text(TINY)
    with socket.socket() as busy:
        busy.bind(("127.0.0.1", 0))
        busy.listen()
        port = busy.getsockname()[1]
        result = cli("tournament", "run", str(tmp_path / "tiny.toml"), "--db",
                     str(tmp_path / "r.sqlite"), "--quiet", "--web", f"127.0.0.1:{port}")
    assert result.status == 2, result.err
    assert f"cannot serve the pages on 127.0.0.1:{port}" in result.err
    assert "no tournament was kept" in result.err
    with Store.open(tmp_path / "r.sqlite", mode="read") as store:
        assert store.tournaments() == []


def test_the_standings_are_refitted_at_most_once_per_ten_times_their_cost(
        tmp_path: Path) -> None:
    """A full read (every result, the fit, the render) that cost 1 s is not made again
    before 10 s have passed, however often the job counts move; unchanged counts never cost
    one; the next read after the wait sees the change."""
    with Store.open(tmp_path / "r.sqlite") as store:
        tid = store.create_tournament(config_from_dict(tomllib.loads(TINY)))
        clock = Ticks()
        reader = StandingsReader(store, tid, clock)
        first = reader()
        assert (reader.reads, first.status, first.done) == (1, "created", 0)
        assert reader() is first and reader.reads == 1  # nothing moved
        store.set_status(tid, "running")  # a new status is read at once
        running = reader()
        assert (reader.reads, running.status) == (2, "running")
        assert 'id="status">running<' in running.panels
        store.claim_next(tid, lambda seats: True)  # a job moves: within 10 x 1 s, not read
        assert reader() is running and reader.reads == 2
        clock.now += 10
        fresh = reader()
        assert reader.reads == 3 and fresh.counts != running.counts


def test_live_steps_are_made_only_once_someone_looks() -> None:
    """Nobody looking: the moves make no steps (their cost doubled a fast tournament); the
    list brings a game up to date in one step; a page or stream follows it move by move; every
    public event is there, in order, whenever one started looking."""
    job = build_schedule(config_from_dict(tomllib.loads(TINY)), "t")[0]

    async def main() -> None:
        live = LiveGames()
        watch = LiveWatch(live)
        observe = watch.start(job)
        game = Game.new(Rules.from_json(job.rules_json), 2, job.seed)
        observe(game)
        for _ in range(5):
            game.apply(game.legal_moves()[0])
            observe(game)
        shown = live.get("0")
        assert shown is not None and shown.steps == []  # nobody looked yet
        watch.refresh()  # the list of live games
        assert len(shown.steps) == 1
        game.apply(game.legal_moves()[0])
        observe(game)
        assert len(shown.steps) == 1  # listed, not followed
        watch.follow("0")  # the game's page or stream
        assert len(shown.steps) == 2
        for _ in range(3):
            game.apply(game.legal_moves()[0])
            observe(game)
        assert len(shown.steps) == 5
        events = [e for step in shown.steps for e in step.to_dict()["events"]]
        assert events == [e.seen_by(SPECTATOR).to_dict() for e in game.events]
        watch.end(job, recorded=True)
        assert live.get("0") is shown and shown.ended and shown.game == job.game_index

    trio.run(main)


def test_a_worker_games_public_events_make_steps_once_someone_looks() -> None:
    """A game played in a worker process comes as its redacted public events, a few at a
    time: kept as they are until someone looks, then one step of all so far, then a step per
    message while its page or stream follows it; the end is the game's end."""
    job = build_schedule(config_from_dict(tomllib.loads(TINY)), "t")[1]

    async def main() -> None:
        live = LiveGames()
        watch = LiveWatch(live)
        game = Game.new(Rules.from_json(job.rules_json), 2, job.seed)
        for _ in range(6):
            game.apply(game.legal_moves()[0])
        public = [e.seen_by(SPECTATOR) for e in game.events]
        watch.public(job, public[:5], False)
        watch.public(job, public[5:8], False)
        shown = live.get("1")
        assert shown is not None and shown.steps == []  # nobody looked yet
        watch.follow("1")
        assert len(shown.steps) == 1
        watch.public(job, public[8:], False)
        assert len(shown.steps) == 2
        events = [e for step in shown.steps for e in step.to_dict()["events"]]
        assert events == [e.to_dict() for e in public]
        watch.end(job, recorded=False)
        assert shown.ended and shown.game is None

    trio.run(main)
