"""Published output of a tournament still being played gives no deal away (issue 33, part 4).

Every seating of a duplicate deal set is dealt the same cards from one seed, and the engine is
public: a seed, or a viewer showing the cards, of a game whose siblings are still to be played
hands those games' players the deal in advance. The tournament here has secret deals, three
bots at tables of three and two deal sets: deal set 0 (games 0-2) played out, deal set 1 with
game 3 recorded, game 4 running and game 5 pending, as a report written mid-contest finds it.
Every file of the report and the CSV and JSON of ``show`` are searched for what determines deal
set 1 (its seed, every seat's first hand) and, as the control that the search can succeed, for
deal set 0's. Game 1 carries a crash whose detail names the organiser's absolute paths, as the
referee records a bot that died: the pages must show them relative to the store.
"""

from __future__ import annotations

import csv
import io
from collections.abc import Callable, Iterator
from dataclasses import dataclass
from pathlib import Path

import pytest

from craits.engine import Game, Rules, format_cards
from craits.report.published import relative_paths, store_roots
from craits.tournament.plan.config import config_from_dict
from craits.tournament.plan.schedule import Job
from craits.tournament.store.database import Store

from .helpers import BOTS, Run, play

Craits = Callable[..., Run]
ELSEWHERE = "/home/organiser/contest/bots/alpha/run.py"
"""A path outside the store's directory, as a failed start may quote a bot's command."""


@dataclass(frozen=True)
class Partial:
    """The half-played tournament and what tells its two deal sets apart."""

    db: Path
    id: str
    jobs: tuple[Job, ...]

    def seed(self, deal_set: int) -> int:
        """The seed every seating of ``deal_set`` shares."""
        (seed,) = {j.seed for j in self.jobs if j.deal_set == deal_set}
        return seed

    def first_hands(self, deal_set: int) -> list[str]:
        """Every seat's cards in the first hand of ``deal_set``, as the viewer writes them."""
        job = next(j for j in self.jobs if j.deal_set == deal_set)
        game = Game.new(Rules.from_json(job.rules_json), len(job.seats), job.seed)
        return [format_cards(sorted(hand)) for hand in game.hands]


def _log_of(db: Path, tid: str) -> str:
    """Where the runner puts alpha's stderr: ``logs/ID/`` beside the database, resolved."""
    return f"{db.resolve().parent}/logs/{tid}/alpha.stderr.log"


def build(db: Path, seed: int | None = None) -> Partial:
    """The tournament as a report written mid-contest finds it (see the module docstring)."""
    config = config_from_dict({
        "name": "mid-contest", "table_size": 3, "deal_sets": 2,
        "bots": [{"name": b} for b in BOTS], **({} if seed is None else {"seed": seed}),
    })
    with Store.open(db) as store:
        tid = store.create_tournament(config)
        jobs = tuple(store.jobs(tid))
        assert [(j.deal_set, j.rotation) for j in jobs] == [(d, r) for d in (0, 1)
                                                           for r in range(3)]
        crash = ("crash", "bot process was killed by signal SIGKILL (its stderr is in "
                 f"{_log_of(db, tid)}; command {ELSEWHERE})")
        for job in jobs[:4]:
            assert store.record_game(play(job, struck_game=1, fault=crash))
        running = store.claim_next(tid)
        assert running is not None and running.game_index == 4
        store.set_status(tid, "running")
    return Partial(db, tid, jobs)


@pytest.fixture(scope="module")
def partial(tmp_path_factory: pytest.TempPathFactory) -> Partial:
    """The half-played tournament, built once for the module's tests (they only read it)."""
    return build(tmp_path_factory.mktemp("partial") / "results.sqlite")


def site_text(out: Path) -> Iterator[tuple[Path, str]]:
    """Every file of a written report with its text."""
    for path in sorted(out.rglob("*")):
        if path.is_file():
            yield path, path.read_text(encoding="utf-8")


def test_the_store_names_the_games_whose_deal_is_still_in_play(partial: Partial) -> None:
    with Store.open(partial.db, mode="read") as store:
        assert store.deals_in_play(partial.id) == {3: (4, 5)}


def test_the_report_holds_back_the_deal_still_in_play(partial: Partial, craits: Craits,
                                                      tmp_path: Path) -> None:
    out = tmp_path / "site"
    run = craits("report", partial.id, "--html", out, "--db", partial.db)
    assert run.status == 0, run.err
    assert "1 recorded game(s) get no viewer yet (3): games 4-5 will be dealt" in run.err
    assert sorted(p.name for p in (out / "games").glob("game-*")) == [
        f"game-{i}.html" for i in range(3)]
    played, in_play = str(partial.seed(0)), str(partial.seed(1))
    pages = dict(site_text(out))
    for path, text in pages.items():
        assert in_play not in text, path
        for hand in partial.first_hands(1):
            assert hand not in text, (path, hand)
    viewers = "".join(text for path, text in pages.items() if path.name.startswith("game-"))
    assert played in viewers
    assert all(hand in viewers for hand in partial.first_hands(0))
    index = pages[out / "index.html"]
    assert "game 3 <span" in index and "deal in play" in index
    assert 'href="games/game-3.html"' not in index and 'href="games/game-2.html"' in index


def test_an_explicit_request_and_an_old_viewer_do_not_publish_it(partial: Partial,
                                                                 craits: Craits,
                                                                 tmp_path: Path) -> None:
    """``--games 3`` is told why it gets nothing; a viewer an older version left is removed
    (the directory is what gets published) and not linked."""
    out = tmp_path / "site"
    (out / "games").mkdir(parents=True)
    (out / "games" / "game-3.html").write_text(f"old viewer, seed {partial.seed(1)}")
    run = craits("report", partial.id, "--html", out, "--games", "3", "--db", partial.db,
                 "--quiet")
    assert run.status == 0, run.err
    assert "get no viewer yet (3)" in run.err
    assert not (out / "games" / "game-3.html").exists()
    assert "game-3.html" not in (out / "index.html").read_text(encoding="utf-8")


def test_the_csv_and_json_hold_back_the_seed(partial: Partial, craits: Craits) -> None:
    run = craits("tournament", "show", partial.id, "--csv", "--db", partial.db)
    assert run.status == 0, run.err
    rows = list(csv.DictReader(io.StringIO(run.out)))
    seeds = {int(r["game_index"]): r["seed"] for r in rows}
    assert seeds == {0: str(partial.seed(0)), 1: str(partial.seed(0)), 2: str(partial.seed(0)),
                     3: ""}
    assert str(partial.seed(1)) not in run.out
    shown = craits("tournament", "show", partial.id, "--json", "--db", partial.db)
    assert shown.status == 0, shown.err
    assert str(partial.seed(1)) not in shown.out and '"alpha"' in shown.out


def test_the_organisers_replay_shows_it_with_a_warning(partial: Partial, craits: Craits) -> None:
    """The organiser's own terminal shows the game whole (docs/reports.md), and says that it
    must not reach a contestant yet; a game of a finished deal set gets no such note."""
    run = craits("replay", partial.id, "3", "--db", partial.db)
    assert run.status == 0, run.err
    assert f"Seed {partial.seed(1)}" in run.out
    assert "games 4, 5 will be dealt the same cards as game 3" in run.err
    assert "keep this replay from every contestant" in run.err
    done = craits("replay", partial.id, "0", "--db", partial.db)
    assert done.status == 0 and done.err == ""


@pytest.mark.slow
def test_a_finished_deal_set_is_published_and_a_given_seed_once_all_is_played(
    craits: Craits, tmp_path: Path
) -> None:
    """The same tournament with an organiser's seed: that seed determines every deal, so the
    index names it only when no game is left; deal set 1 gets its viewers once played out."""
    built = build(tmp_path / "seeded.sqlite", seed=424242)
    out = tmp_path / "site"
    assert craits("report", built.id, "--html", out, "--db", built.db).status == 0
    index = (out / "index.html").read_text(encoding="utf-8")
    assert "424242" not in index and "deals from a seed" in index
    with Store.open(built.db) as store:
        for job in built.jobs[4:]:
            assert store.record_game(play(job))
        store.set_status(built.id, "finished")
        assert store.deals_in_play(built.id) == {}
    run = craits("report", built.id, "--html", out, "--db", built.db)
    assert run.status == 0 and "no viewer" not in run.err
    assert "seed 424242" in (out / "index.html").read_text(encoding="utf-8")
    viewer = (out / "games" / "game-3.html").read_text(encoding="utf-8")
    assert f"seed {built.seed(1)}" in viewer
    assert all(hand in viewer for hand in built.first_hands(1))
    rows = list(csv.DictReader(io.StringIO(
        craits("tournament", "show", built.id, "--csv", "--db", built.db).out)))
    assert {r["seed"] for r in rows if r["game_index"] == "3"} == {str(built.seed(1))}


def test_no_absolute_path_of_the_organiser_is_in_the_report(partial: Partial, craits: Craits,
                                                            tmp_path: Path) -> None:
    """Game 1's crash names the bot's log (under the store) and a command elsewhere: the
    viewer shows the log relative to the store and only the command's file name. The store is
    reached through a link, as an organiser's may be, and the report written beside it."""
    linked = tmp_path / "linked"
    linked.mkdir()
    (linked / "results.sqlite").symlink_to(partial.db)
    out = tmp_path / "site"
    run = craits("report", partial.id, "--html", out, "--db", linked / "results.sqlite")
    assert run.status == 0, run.err
    viewer = (out / "games" / "game-1.html").read_text(encoding="utf-8")
    assert f"logs/{partial.id}/alpha.stderr.log" in viewer
    assert "…/run.py" in viewer
    organiser = {str(partial.db.parent), str(partial.db.resolve().parent), str(tmp_path),
                 str(Path.home()), "/home/organiser"}
    for path, text in site_text(out):
        for where in organiser:
            assert where not in text, (path, where)
    replay = craits("replay", partial.id, "1", "--db", partial.db)  # the organiser's own
    assert _log_of(partial.db, partial.id) in replay.out


@pytest.mark.parametrize(("text", "shown"), [
    ("see /srv/craits/logs/t1/a.stderr.log.", "see logs/t1/a.stderr.log."),
    ("(its stderr is in /srv/craits/logs/t1/a b.log)", "(its stderr is in logs/t1/a b.log)"),
    ("ran /usr/bin/python3: exit 1", "ran …/python3: exit 1"),
    ('File "/opt/bots/x.py", line 3', 'File "…/x.py", line 3'),
    ("1/2 of the time, and/or ./relative/path", "1/2 of the time, and/or ./relative/path"),
    ("/srv/craits-old/x.log", "…/x.log"),
])
def test_paths_are_shown_relative_to_the_store(text: str, shown: str) -> None:
    assert relative_paths(text, store_roots(Path("/srv/craits/results.sqlite"))) == shown


def test_a_store_on_disk_knows_its_file(tmp_path: Path) -> None:
    with Store.open(tmp_path / "a.sqlite") as store:
        assert store.file is not None
        assert store.file.resolve() == (tmp_path / "a.sqlite").resolve()
    with Store.open(":memory:") as memory:
        assert memory.file is None
