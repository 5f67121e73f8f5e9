"""``craits serve --web``: the pages of a referee's games between remote bots, from real processes.

``craits serve`` runs as a user starts it, its referee and its pages on free ports; two SDK bots
that think a few milliseconds a move dial it over gRPC on loopback with the tokens it prints, so
games are being played while the test reads. A raw HTTP client (as one of the bots could be)
reads every route and stream while the games are played and finds no hidden card before a game
ends (the contest's own check, ``test_live_hidden``); the results page changes as games finish;
a finished game's page shows every hand. Headless Chromium shows a live game's moves arriving.
With ``--seed``, a finished game's viewer (whose seed gives the next game's) is held back until
the last game is over: shown by a spectator rebuilding the next deal where it is not.
"""

from __future__ import annotations

import json
import os
import re
import signal
import socket
import subprocess
import sys
import threading
from collections.abc import Callable, Iterator, Sequence
from dataclasses import dataclass, field
from pathlib import Path

import httpx
import pytest
import trio
from hypercorn.trio import serve

from craits.cli.main import main
from craits.contest.live import SPECTATOR
from craits.contest.service import Listen, hypercorn_config
from craits.contest.web.serve import ResultsReader, ServedGames, serve_app
from craits.engine import Event, Game, Rules
from craits.referee.game import GameSpec, PlayedGame, play_game
from craits.referee.seats import InProcessSeat
from tests.contest.web.browser import Browser, shots
from tests.hidden_cards import hidden_forms, leaks
from tests.live_streams import read_stream
from tests.waiting import wait_until

from .helpers import Ticks, WebRun, WebRuns

PACED_BOT = """
import os
import time

from craits_bots.greedy import GreedyBot

PAUSE = float(os.environ["PACE_S"])


class Paced(GreedyBot):
    \"\"\"Greedy, PACE_S seconds a move: games last long enough to be watched.\"\"\"

    def decide(self, view):
        time.sleep(PAUSE)
        return super().decide(view)
"""
TOKEN = re.compile(r"bot (\w+): CRAITS_SERVER=(\S+) CRAITS_TOKEN=(\S+)")
SHORT = Rules(short_game=True)


@dataclass
class Run(WebRun):
    """A ``craits serve --web`` process, and its bots."""

    bots: list[subprocess.Popen[str]] = field(default_factory=list)

    def connect(self, cwd: Path, pace_s: float) -> None:
        """Start one SDK bot per token printed, dialling the referee over gRPC."""
        for line in list(self.err):
            if m := TOKEN.search(line):
                env = {**os.environ, "CRAITS_SERVER": m[2], "CRAITS_TOKEN": m[3],
                       "PACE_S": str(pace_s), "PYTHONPATH": str(cwd)}
                self.bots.append(subprocess.Popen(
                    [sys.executable, "-m", "craits_sdk", "run", "pacedbot:Paced"], cwd=cwd,
                    env=env, text=True, stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL))


@pytest.fixture
def start_serve(tmp_path: Path) -> Iterator[Callable[..., Run]]:
    """Start ``craits serve`` for alice and bob with its pages on a free port, kept up after the
    last game (``--web-linger``), and ``extra`` options, once it has printed both bots' tokens
    (after the pages' address); each run still going at the end of the test is ended with
    Ctrl-C, and its bots with it."""
    (tmp_path / "pacedbot.py").write_text(PACED_BOT)
    runs = WebRuns(Run, tmp_path)
    yield lambda *extra: runs.start(
        ["serve", "--port", "0", "--bot", "alice", "--bot", "bob", "--set", "short_game=true",
         "--web", "127.0.0.1:0", "--web-linger", "--json", *extra],
        ready=lambda run: len([line for line in run.err if TOKEN.search(line)]) == 2)
    runs.close()
    for run in runs.runs:
        for bot in run.bots:
            bot.wait(timeout=30)


def replayed(rules: Rules, seed: int, seats: int, steps: Sequence[dict[str, object]]
             ) -> list[Event]:
    """Every event of the game whose public steps are ``steps``, hidden cards and all: dealt
    from its seed, each move the legal one whose events, as a spectator sees them, come next
    in the steps (the organiser's view, rebuilt without a store; a step may hold many moves,
    when it caught up with a game nobody had looked at)."""
    public = [e for step in steps for e in step["events"]]  # type: ignore[attr-defined]
    game = Game.new(rules, seats, seed)
    made = len(game.events)
    assert [e.seen_by(SPECTATOR).to_dict() for e in game.events] == public[:made]
    while not game.is_over:
        for move in game.legal_moves():
            trial = game.clone()
            trial.apply(move)
            new = [e.seen_by(SPECTATOR).to_dict() for e in trial.events[made:]]
            if new == public[made:made + len(new)]:
                game, made = trial, len(trial.events)
                break
        else:
            raise AssertionError(f"no legal move makes public event {made}")
    assert made == len(public)
    return list(game.events)


def done_of(panels: str) -> int:
    """The games played, as the results' panels say."""
    found = re.search(r'<span id="done">(\d+)</span>', panels)
    assert found is not None
    return int(found[1])


def read_results(url: str, panels: list[str]) -> None:
    """Follow the results' stream (``standings`` events: the panels, whole) until it says the
    run is finished."""
    with httpx.Client(timeout=60) as client, client.stream("GET", url) as response:
        data: list[str] = []
        for line in response.iter_lines():
            if line.startswith("data: "):
                data.append(line.removeprefix("data: "))
            elif not line and data:
                panels.append("\n".join(data))
                data = []
                if '<b id="status">finished</b>' in panels[-1]:
                    return


@pytest.mark.slow
def test_pages_while_remote_bots_play(start_serve: Callable[..., Run], tmp_path: Path) -> None:
    """Two games between remote bots: the results before the bots connect, as games finish and
    at the end (page, stream and JSON); every route and stream read during the games carries no
    hidden card, a live game's stream gives every public event from the first whether read from
    the start or joined midway, then its end; once over, a game's page shows every hand."""
    run = start_serve("--games", "2")
    url = run.url
    with httpx.Client(base_url=url, timeout=30) as client:
        waiting = client.get("/").text  # the bots have not connected yet
        assert '<b id="status">waiting</b>' in waiting and done_of(waiting) == 0
        assert client.get("/games/0").status_code == 404
        panels: list[str] = []
        results = threading.Thread(target=read_results,
                                   args=(f"{url}/standings/events", panels))
        results.start()
        run.connect(tmp_path, pace_s=0.004)
        wait_until(lambda: 'href="/live/0"' in client.get("/live").text)
        streams: dict[str, tuple[list[str], list[dict[str, object]]]] = {}
        bodies: dict[str, list[str]] = {}
        readers = []
        for key in ("0", "1"):
            if key == "1":  # joined midway: the second game once it has made some steps
                wait_until(lambda: re.search(r'href="/live/1".*?<td>([3-9]|\d\d+)</td>',
                                             client.get("/live").text) is not None)
            streams[key] = ([], [])
            readers.append(threading.Thread(target=read_stream, args=(
                f"{url}/live/{key}/events", *streams[key])))
            readers[-1].start()
            bodies[key] = []
            while readers[-1].is_alive():
                for path in ("/", "/standings.json", "/live", f"/live/{key}", f"/games/{key}"):
                    response = client.get(path)
                    if path.startswith("/games/") and response.status_code == 200:
                        continue  # the game is over: its page shows every hand, as it may
                    bodies[key].append(response.text)
        whole = client.get("/games/0").text
        wait_until(lambda: run.said("the last game is over; the pages stay up until Ctrl-C"))
        for bot in run.bots:  # the referee has let them go: only the pages stay
            assert bot.wait(timeout=30) == 0
        results.join(timeout=30)  # it has sent the finished results: read them again
        final = client.get("/standings.json").json()
        page = client.get("/").text
    for reader in readers:
        reader.join()

    run.proc.send_signal(signal.SIGINT)  # lingering: Ctrl-C ends it, as a normal end
    out, _ = run.proc.communicate(timeout=60)
    assert run.proc.returncode == 0, "".join(run.err)
    played = json.loads(out)
    assert played["interrupted"] is False and len(played["games"]) == 2
    assert not [line for line in run.err if "Traceback" in line or "Task was" in line]

    for key, (lines, steps) in streams.items():
        game = played["games"][int(key)]
        seats = [s["bot"] for s in game["seats"]]
        full = replayed(SHORT, game["seed"], 2, steps)
        assert [s["i"] for s in steps] == list(range(len(steps)))  # from the first, in order
        assert [e for s in steps for e in s["events"]] == [  # type: ignore[attr-defined]
            e.seen_by(SPECTATOR).to_dict() for e in full]
        assert [line for line in lines if line.startswith("event: end")] == ["event: end"]
        forms = hidden_forms(full, seats)
        assert len(forms) > 10  # the deals and the draws of a whole game
        assert leaks(["\n".join(lines), *bodies[key], *panels], forms) == []  # streams, pages
        assert any("Being played" in body for body in bodies[key])  # read while played
        if key == "0":
            assert leaks([whole], forms)  # once over, the game's page shows the whole hands
    dones = [done_of(p) for p in panels]  # the results' panels as the stream sent them
    assert dones == sorted(dones) and dones[0] == 0 and dones[-1] == 2
    assert final["status"] == "finished" and final["done"] == 2
    assert [row["games"] for row in final["rows"]] == [2, 2]
    assert 'href="/games/0"' in page and 'href="/games/1"' in page


@pytest.mark.slow
def test_a_live_game_in_a_browser(start_serve: Callable[..., Run], tmp_path: Path) -> None:
    """Headless Chromium on the live list, then a game's page: its moves arrive in place
    (the SSE script) until the end, which links the whole game; the results page counts it."""
    run = start_serve("--games", "1")
    browser = Browser(tmp_path / "profile")
    try:
        run.connect(tmp_path, pace_s=0.015)
        with httpx.Client(base_url=run.url, timeout=30) as client:
            wait_until(lambda: 'href="/live/0"' in client.get("/live").text)
        browser.open(run.url + "/live")
        assert "alice, bob" in browser.text("#live")
        browser.js("document.querySelector('#live a').click()")
        browser.wait_for("location.pathname === '/live/0' && document.readyState === 'complete'")
        browser.wait_for("Number(document.body.dataset.liveSteps || 0) > 0")
        seen = browser.js("Number(document.body.dataset.liveSteps)")
        lines = browser.js("document.querySelectorAll('#moves li').length")
        browser.wait_for(f"Number(document.body.dataset.liveSteps) > {seen} + 3")
        assert browser.js("document.querySelectorAll('#moves li').length") > lines
        browser.screenshot(shots(tmp_path) / "serve-live.png")
        browser.wait_for("document.body.dataset.liveEnded === '1'", timeout=60)
        assert browser.js("document.querySelector('#state a').getAttribute('href')") == \
            "/games/0"
        browser.open(run.url + "/")
        browser.wait_for("document.getElementById('status').innerText === 'finished'")
        assert browser.text("#done") == "1"
        browser.screenshot(shots(tmp_path) / "serve-results.png")
        assert browser.csp_violations() == []  # the pages' own scripts and styles all ran
    finally:
        browser.close()


def test_a_busy_web_port_stops_serve_before_any_bot_is_awaited(
        capsys: pytest.CaptureFixture[str]) -> None:
    with socket.socket() as taken:
        taken.bind(("127.0.0.1", 0))
        taken.listen()
        port = taken.getsockname()[1]
        code = main(["serve", "--port", "0", "--bot", "a", "--bot", "b", "--web",
                     f"127.0.0.1:{port}"])
    captured = capsys.readouterr()
    assert code == 2 and captured.out == "" and "Traceback" not in captured.err
    assert f"craits: error: cannot serve the pages on 127.0.0.1:{port}" in captured.err
    assert "no game was played" in captured.err
    assert "bot a:" not in captured.err  # stopped before the referee listened


def test_web_linger_needs_web(capsys: pytest.CaptureFixture[str]) -> None:
    assert main(["serve", "--bot", "a", "--bot", "b", "--web-linger"]) == 2
    assert "--web-linger keeps the pages of --web up: give --web too" in capsys.readouterr().err


def first_legal(name: str) -> InProcessSeat:
    return InProcessSeat(name, lambda view, rules: view.legal_moves[0])


def test_seeded_games_are_shown_once_every_game_is_played() -> None:
    """With ``--seed N`` the games are dealt from N, N+1, ...: a spectator reading a finished
    game's viewer learns its seed, hence the next game's every card. Control: the viewer of a
    run without the hold (``seeded`` False) gives the seed, and the next deal rebuilt from it
    is the one being played. With the hold, the page shows no seed and no card until the last
    game is over, then the viewer."""
    seed = 7

    async def main() -> None:
        specs = [GameSpec(f"g{i}", SHORT, seed + i) for i in range(2)]
        played: list[PlayedGame] = [
            await play_game(spec, [first_legal("alice"), first_legal("bob")])
            for spec in specs]
        for hold in (False, True):
            games = ServedGames(("alice", "bob"), 3, hold, played)
            games.playing()
            async with trio.open_nursery() as nursery:
                [bind] = await nursery.start(serve, serve_app(games),
                                             hypercorn_config(Listen("127.0.0.1", 0)))
                async with httpx.AsyncClient(base_url=bind) as client:
                    page = (await client.get("/games/0")).text
                    listed = (await client.get("/")).text
                    games.finished()
                    after = (await client.get("/games/0")).text
                nursery.cancel_scope.cancel()
            found = re.search(r"seed (\d+)", page)
            if not hold:  # the attack: the next game's deal, from this page alone
                assert found is not None
                next_deal = Game.new(SHORT, 2, int(found[1]) + 1).events
                assert next_deal == played[1].events[:len(next_deal)]
                assert 'href="/games/0"' in listed
            else:
                assert found is None and 'id="held"' in page
                assert leaks([page, listed], hidden_forms(played[0].events, ["alice", "bob"])) \
                    == []
                assert 'href="/games/0"' not in listed and "--seed" in listed
                assert f"seed {seed}" in after  # the run is over: the viewer, seed and all

    trio.run(main)


def test_the_results_are_read_at_most_once_per_ten_times_their_cost() -> None:
    """On a clock that ticks 1 s per look: a full read (scores, standings, render) that cost
    1 s is not made again before 10 s have passed, however many games finish meanwhile;
    nothing new never costs one; a new status is read at once."""

    async def main() -> None:
        spec = GameSpec("g", SHORT, 3)
        game = await play_game(spec, [first_legal("alice"), first_legal("bob")])
        played: list[PlayedGame] = []
        games = ServedGames(("alice", "bob"), 3, False, played)
        clock = Ticks()
        reader = ResultsReader(games, clock)
        first = reader()
        assert (reader.spacing.reads, first.status, first.done) == (1, "waiting", 0)
        assert reader() is first and reader.spacing.reads == 1  # nothing new
        games.playing()  # a new status: read at once
        playing = reader()
        assert (reader.spacing.reads, playing.status) == (2, "playing")
        played.append(game)  # a game finished: within 10 x 1 s, not read
        assert reader() is playing and reader.spacing.reads == 2
        clock.now += 10
        fresh = reader()
        assert reader.spacing.reads == 3 and fresh.done == 1
        assert '<span id="done">1</span>' in fresh.panels

    trio.run(main)
