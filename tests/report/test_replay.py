"""``craits replay``: the text agrees with the store, and a seat's view shows only what it saw."""

from __future__ import annotations

import dataclasses
import json
import re
import shutil
import sqlite3
from collections.abc import Callable
from pathlib import Path
from typing import Any

import pytest

from craits.engine import GameRecord, replay
from craits.report.steps import ReplayMismatch, steps
from craits.report.stored import StoredGame, load_game
from craits.report.terminal import Style, render
from craits.tournament.store.database import Store

from .helpers import BOTS, STRUCK_DECISION, STRUCK_GAME, Run, Tournament

Craits = Callable[..., Run]
CARD = re.compile(r"(?<![\w])(?:10|[2-9AJQK])[CDHS](?![\w])")
SCORE_ROW = re.compile(r"^    (\S+)\s+([+-]\d+)\s+(-?\d+)\s+(?:left [^\n]*|out)$", re.M)
RESULT_ROW = re.compile(r"^\s+(\d+)\s+(\d+)\s+(\S+)\s+(-?\d+)\s+(\d+)(?:  forfeited)?$", re.M)


def hand_blocks(text: str) -> dict[int, str]:
    """The text of each hand, keyed by hand number (up to the next hand or the result)."""
    parts = re.split(r"^(?=Hand \d+ of \d+:|Result$)", text, flags=re.M)
    return {int(p.split()[1]): p for p in parts if p.startswith("Hand ")}


def stored_hand_scores(store: Store, tid: str, index: int) -> dict[int, list[tuple[str, int,
                                                                                   int]]]:
    """Per hand, (bot, hand score, total after) from the score events of the stored game."""
    game = load_game(store, tid, index)
    hands: dict[int, list[tuple[str, int, int]]] = {1: []}
    for event in game.events:
        if event["kind"] == "hand_score":
            hands[len(hands)].append((game.seats[event["seat"]], event.get("value", 0),
                                      event["aux"]))
        elif event["kind"] == "hand_end":
            hands[len(hands) + 1] = []
    return {n: rows for n, rows in hands.items() if rows}


@pytest.mark.slow
def test_every_hand_score_and_the_result_match_the_store(
    tournament: Tournament, craits: Craits
) -> None:
    with Store.open(tournament.db) as store:
        results = store.results(tournament.id)
        for result in results:
            run = craits("replay", tournament.id, result.game_index, "--db", tournament.db)
            assert run.status == 0, run.err
            blocks = hand_blocks(run.out)
            expected = stored_hand_scores(store, tournament.id, result.game_index)
            assert sorted(blocks) == sorted(expected) == list(range(1, 16))
            for n, rows in expected.items():
                shown = [(b, int(s), int(t)) for b, s, t in SCORE_ROW.findall(blocks[n])]
                assert shown == rows, f"hand {n}"
            final = run.out.split("\nResult\n")[1]
            shown_result = {(int(p), int(s), b, int(t), int(k))
                            for p, s, b, t, k in RESULT_ROW.findall(final)}
            assert shown_result == {
                (result.places[i], i, result.seats[i], result.totals[i], result.strikes[i])
                for i in range(len(result.seats))
            }


def _deals_by_hand(game: StoredGame) -> list[tuple[int, dict[str, Any]]]:
    """Every deal event with the number of its hand."""
    hand, out = 0, []
    for event in game.events:
        if event["kind"] == "hand_start":
            hand = event["aux"]
        elif event["kind"] == "deal":
            out.append((hand, dict(event)))
    return out


def public_or_own(line: str, viewer: str) -> bool:
    """Whether a line that names cards may name them: an open event, or the viewer's own."""
    return (line.startswith((f"  {viewer} ", f"  ({viewer} holds "))
            or re.match(r"^  \S+ (plays|turns up) ", line) is not None
            or re.match(r"^    \S+\s+[+-]\d+\s+-?\d+  left ", line) is not None
            or line.endswith("for the first deal"))


@pytest.mark.parametrize("seat", range(len(BOTS)))
def test_a_seat_never_sees_another_seats_hidden_cards(
    tournament: Tournament, craits: Craits, seat: int
) -> None:
    run = craits("replay", tournament.id, 0, "--seat", seat, "--db", tournament.db)
    assert run.status == 0, run.err
    with Store.open(tournament.db) as store:
        game = load_game(store, tournament.id, 0)
    seats, deals = game.seats, _deals_by_hand(game)
    for line in run.out.splitlines():
        if CARD.search(line):
            assert public_or_own(line, seats[seat]), line
    blocks = hand_blocks(run.out)
    width, checked = max(map(len, seats)), 0
    for hand, deal in deals:
        block, dealt = blocks[hand], deal["cards"]
        if deal["seat"] == seat:
            assert f"  {seats[seat]:<{width}}  {' '.join(dealt)}\n" in block
            continue
        assert re.search(f"^  {re.escape(seats[deal['seat']])} +{len(dealt)} cards?$", block,
                         re.M)
        for card in dealt:
            first = next(line for line in block.splitlines() if card in CARD.findall(line))
            assert re.match(r"^(  \S+ plays |    \S+ .* left )", first), (hand, card, first)
            checked += 1
    assert checked > 100


def test_the_full_view_shows_every_deal(tournament: Tournament, craits: Craits) -> None:
    run = craits("replay", tournament.id, 0, "--db", tournament.db)
    with Store.open(tournament.db) as store:
        for deal in (e for e in load_game(store, tournament.id, 0).events
                     if e["kind"] == "deal"):
            assert " ".join(deal["cards"]) in run.out


def test_one_hand_only(tournament: Tournament, craits: Craits) -> None:
    run = craits("replay", tournament.id, 2, "--hand", 8, "--db", tournament.db)
    assert run.status == 0
    assert list(hand_blocks(run.out)) == [8]
    assert "Result" not in run.out and "Hand 8 of 15: 1 card each" in run.out


def test_strikes_and_referee_moves_are_told(tournament: Tournament, craits: Craits) -> None:
    run = craits("replay", tournament.id, STRUCK_GAME, "--db", tournament.db)
    assert "! strike against" in run.out
    assert f"at decision {STRUCK_DECISION}: timeout: no valid move within 1.000s" in run.out
    assert "! the referee moves for" in run.out


def test_json_is_a_record_the_engine_replays(tournament: Tournament, craits: Craits) -> None:
    run = craits("replay", tournament.id, 1, "--json", "--db", tournament.db)
    assert run.status == 0 and run.out.count("\n") == 1
    data: dict[str, Any] = json.loads(run.out)
    record = GameRecord.from_dict(data)
    game = replay(record.rules, record.players, record.seed, record.moves)
    assert game.outcome is not None
    assert list(game.outcome.totals) == data["result"]["totals"]
    assert [e.to_dict() for e in game.events] == data["events"]
    with Store.open(tournament.db) as store:
        assert data["seats"] == list(store.jobs(tournament.id)[1].seats)
    assert data["result"]["strikes"].count(1) == 1 and data["faults"][0]["action"] == "strike"


def test_piped_text_is_plain_and_a_terminal_gets_colour(tournament: Tournament,
                                                        craits: Craits) -> None:
    run = craits("replay", tournament.id, 0, "--db", tournament.db)
    assert "\033" not in run.out
    with Store.open(tournament.db) as store:
        game = load_game(store, tournament.id, 0)
    coloured = "\n".join(render(game, style=Style(colour=True)))
    assert "\033[1mHand 1 of 15" in coloured and "\033[31m" in coloured


def test_a_log_that_does_not_follow_from_its_moves_is_refused(tournament: Tournament) -> None:
    with Store.open(tournament.db) as store:
        game = load_game(store, tournament.id, 0)
    events = list(game.events)
    at = next(i for i, e in enumerate(events) if e["kind"] == "play")
    events[at] = {**events[at], "cards": ["KS" if events[at]["cards"] != ["KS"] else "KH"]}
    with pytest.raises(ReplayMismatch, match=f"event {at} differs"):
        steps(dataclasses.replace(game, events=tuple(events)))
    with pytest.raises(ReplayMismatch, match="do not finish the game"):
        steps(dataclasses.replace(game, decisions=game.decisions[:-1]))


@pytest.mark.parametrize(("args", "fragment"), [
    (("9",), "has no game 9 (games 0 to 2)"),
    (("0", "--seat", "3"), "--seat 3: the game has seats 0 to 2"),
    (("0", "--hand", "0"), "--hand 0: the game has hands 1 to 15"),
    (("0", "--json", "--seat", "1"), "--seat and --hand are for the text"),
])
def test_usage_errors(tournament: Tournament, craits: Craits, args: tuple[str, ...],
                      fragment: str) -> None:
    run = craits("replay", tournament.id, *args, "--db", tournament.db)
    assert run.status == 2 and run.out == ""
    assert run.err.startswith("craits: error: ") and fragment in run.err


def test_unknown_tournament_and_missing_database(tournament: Tournament, craits: Craits,
                                                 tmp_path: Path) -> None:
    run = craits("replay", "nosuch", "0", "--db", tournament.db)
    assert run.status == 2 and "no tournament 'nosuch'" in run.err
    missing = tmp_path / "none.sqlite"
    run = craits("replay", tournament.id, "0", "--db", missing)
    assert run.status == 2 and "no results database" in run.err
    assert not missing.exists()


def _tampered(tournament: Tournament, tmp_path: Path, sql: str) -> Path:
    """A copy of the tournament's store with one game changed behind the store's back."""
    db = tmp_path / "tampered.sqlite"
    shutil.copyfile(tournament.db, db)
    with sqlite3.connect(db) as con:
        con.execute(sql)
    con.close()
    return db


@pytest.mark.parametrize(("sql", "fragment"), [
    ("UPDATE games SET totals = '[1, 2, 3]' WHERE id = 1", "does not end as stored: totals"),
    ("UPDATE games SET outcome = '{\"hands_played\": 3}' WHERE id = 1",
     "does not end as stored: hands_played"),
    ("UPDATE games SET record = X'00' WHERE id = 1", "the stored record is damaged"),
])
def test_a_record_that_does_not_replay_as_stored_is_a_loud_error(
    tournament: Tournament, craits: Craits, tmp_path: Path, sql: str, fragment: str
) -> None:
    db = _tampered(tournament, tmp_path, sql)
    for command in (("replay", tournament.id, 0), ("replay", tournament.id, 0, "--json"),
                    ("report", tournament.id, "--html", tmp_path / "site", "--quiet")):
        run = craits(*command, "--db", db)
        assert run.status == 1 and run.out == "", (command, run)
        assert run.err.startswith("craits: error: game 0: ") and fragment in run.err
