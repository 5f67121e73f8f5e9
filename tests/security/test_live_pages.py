"""A bot that reads the live pages of ``craits tournament run --web`` learns nothing of a deal it
will play again (``craits.contest.web.tournament.LiveRule``; docs/security.md, "Live games").

The tournament is trusted (its command bot runs unsandboxed, with the network) and dealt
duplicate deals: one meeting of two seats, one deal set, so game 1 is game 0's deal with the
seats turned round. The bot (``live_spy_bot.py``, a real process) reads every live page and
stream over HTTP on loopback at its first decisions of each game. While it plays game 0, game
0 is listed as held, with no link, its page shows no move and its stream is refused: no card of
the deal reaches the bot. In game 1, the deal's last seating, the same pages show its moves.
The control run, the same tournament with the live rule open (as an adversarial run's is),
shows the attack working: reading game 0's live page during game 0, the bot learns cards of
the deal it plays next.

The unit tests below check the rule itself on a store: which games are held, when, and that
an adversarial run (sandboxed command bots, remote bots at independent deals) holds none.
"""

from __future__ import annotations

import json
import re
import shutil
import tomllib
from collections.abc import Iterable
from pathlib import Path
from typing import Any

import pytest

from craits.cli.tournament_web import WebRun, run_with_web
from craits.contest.service import Listen
from craits.contest.web.tournament import OPEN_LIVE, LiveRule
from craits.engine import Rules
from craits.referee import bridge
from craits.tournament.plan.config import config_from_dict
from craits.tournament.run.runner import RunOptions
from craits.tournament.store.database import Store
from craits.tournament.store.game_records import rebuild
from craits.tournament.store.record_codec import decode

SPY = Path(__file__).with_name("live_spy_bot.py")

CUP = """
name = "spied cup"
trust = "trusted"
table_size = 2
deal_sets = 1
concurrency = 1
[rules]
short_game = true
[[bots]]
name = "spy"
command = "python3 live_spy_bot.py"
[[bots]]
name = "lowcard"
"""


def play(where: Path, rule: LiveRule | None) -> tuple[Store, str, list[dict[str, Any]]]:
    """Play the cup in ``where`` with its pages up and ``rule`` (None: the tournament's own):
    the store (open), the tournament and what the spy read, decision by decision."""
    shutil.copy(SPY, where / SPY.name)
    store = Store.open(where / "results.sqlite")
    tid = store.create_tournament(config_from_dict(tomllib.loads(CUP)), workdir=where)

    def announce(line: str) -> None:
        if line.startswith("web pages: "):
            (where / "web_url").write_text(line.removeprefix("web pages: ").rstrip("/\n"))

    bridge.run(run_with_web, WebRun(Listen("127.0.0.1", 0), linger=False, live_note=""),
               store, tid, RunOptions(where / "logs"), lambda progress: None, announce, rule)
    seen = [json.loads(line) for line in (where / "seen.jsonl").read_text().splitlines()]
    return store, tid, seen


def dealt(store: Store, tid: str, index: int) -> set[str]:
    """Every card dealt to a seat in recorded game ``index`` (the deal's hidden cards)."""
    job = store.job(tid, index)
    row = store.game_record(tid, index)
    assert job is not None and row is not None and row.record is not None
    game = rebuild(Rules.from_json(job.rules_json), len(job.seats), job.seed,
                   decode(row.record)).game
    return {str(card) for e in game.events if e.kind == "deal" for card in e.cards}


def named(cards: Iterable[str], texts: Iterable[str]) -> set[str]:
    """The ``cards`` that any of ``texts`` names (as a card, not inside another word)."""
    text = "\n".join(texts)
    return {c for c in cards if re.search(rf"(?<![0-9A-Za-z]){c}(?![0-9A-Za-z])", text)}


def texts(looks: Iterable[dict[str, Any]]) -> list[str]:
    """Everything the spy read at ``looks``."""
    return [text for look in looks for _, text in look["seen"].values()]


def during(store: Store, tid: str, seen: list[dict[str, Any]], index: int
           ) -> list[dict[str, Any]]:
    """What the spy read while it played game ``index``."""
    job = store.job(tid, index)
    assert job is not None
    return [look for look in seen if look["game"] == job.game_id]


@pytest.mark.slow
@pytest.mark.parametrize("rule", [None, OPEN_LIVE], ids=["rule", "control-open"])
def test_a_bot_learns_nothing_of_a_deal_it_will_play_again(tmp_path: Path,
                                                            rule: LiveRule | None) -> None:
    """The tournament's own rule (None): while the spy plays game 0, game 0 is listed held with
    no link, its page shows no move and its stream is refused, and the spy learns no card of the
    deal. Control with the rule open: game 0 is linked, its stream answers, and the spy learns
    cards of the deal it plays again in game 1. In both, game 1 (the deal's last seating) is
    shown."""
    shown = rule is OPEN_LIVE
    store, tid, seen = play(tmp_path, rule)
    with store:
        deal = dealt(store, tid, 0)
        assert deal == dealt(store, tid, 1) and len(deal) >= 16  # duplicate: one deal
        first, last = during(store, tid, seen, 0), during(store, tid, seen, 1)
    assert len(first) >= 3 and len(last) >= 3
    for look in first:  # game 0, with game 1 of its deal still to play
        pages = look["seen"]
        status, listing = pages["/live"]
        assert status == 200
        assert ('<tr class="held"><td class="name">0</td>' in listing) is not shown
        assert ('href="/live/0"' in listing) is shown
        status, page = pages["/live/0"]
        assert status == 200 and ('id="held"' in page) is not shown
        assert shown or 'id="moves"' not in page
        assert pages["/live/0/events"][0] == (200 if shown else 403)
        assert pages["/live/1"][0] == pages["/live/1/events"][0] == 404  # not started yet
    learned = named(deal, texts(first))
    if shown:
        assert len(learned) >= 2, learned  # the attack works: cards of the deal it plays next
    else:
        assert learned == set()
    # game 1, the deal's last seating: nothing left to learn for, so its moves are shown
    assert all('href="/live/1"' in look["seen"]["/live"][1] for look in last)
    assert all(look["seen"]["/live/1/events"][0] == 200 for look in last)
    assert named(deal, [look["seen"]["/live/1"][1] for look in last])


def cup(**changes: Any) -> dict[str, Any]:
    """The cup's configuration with ``changes``."""
    return {**tomllib.loads(CUP), **changes}


def test_the_live_rule_holds_a_game_while_its_deal_is_to_come_and_a_reader_plays_it(
        tmp_path: Path) -> None:
    with Store.open(tmp_path / "r.sqlite") as store:
        config = config_from_dict(cup())
        tid = store.create_tournament(config)
        rule = LiveRule.of(config)
        assert rule.readers == {"spy"}  # trusted: the command bot has the network
        seats = {"0": ("spy", "lowcard")}
        store.claim_next(tid)  # game 0 being played, game 1 of its deal still to come
        assert store.deals_in_play(tid, [0, 1]) == {0: (1,), 1: (0,)}
        assert store.deals_in_play(tid, [0]) == {0: (1,)}
        assert store.deals_in_play(tid) == {}  # the report's: recorded games only
        assert rule.held(store, tid, seats) == {"0"}
        assert OPEN_LIVE.held(store, tid, seats) == set()
        assert LiveRule(frozenset({"greedy"})).held(store, tid, seats) == set()  # no reader
        store.skip_pending(tid)  # game 1 will never be played: nothing left to learn for
        assert rule.held(store, tid, seats) == set()


def test_who_could_read_the_pages() -> None:
    """Adversarial: nobody (command bots sandboxed without network; a remote bot could, but
    its meetings get independent deals, which no other seating shares). Trusted: command and
    remote bots; never bundled bots, nor in-process ones (the organiser's code, which could
    read the store itself)."""
    bots = [{"name": "spy", "command": "python3 spy.py"},
            {"name": "far", "remote": True, "token": "t" * 32},
            {"name": "here", "python": "craits_bots.greedy:GreedyBot"},
            {"name": "lowcard"}]
    assert LiveRule.of(config_from_dict(cup(bots=bots, trust="adversarial"))).readers == {"far"}
    assert LiveRule.of(config_from_dict(cup(bots=bots))).readers == {"spy", "far"}
    adversarial = config_from_dict(cup(bots=bots, trust="adversarial"))
    assert adversarial.independent(("far", "lowcard"))
    assert not adversarial.independent(("spy", "lowcard"))
