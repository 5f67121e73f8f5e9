"""The human seat in process: what a person sees, and how typed answers are judged."""

from __future__ import annotations

from collections.abc import Iterable

import pytest

from craits.check.positions import Position, position
from craits.engine import Card, Event, Move, MoveError, preset
from craits.play.human import EntryError, HumanSeat, parse_entry, wrap_line
from craits.play.narrate import player_voice
from craits.referee import bridge
from craits.referee.game import GameSpec, play_game
from craits.referee.policy import SeatClock, TimeControl
from craits.referee.seats import Decision, InProcessSeat, Table
from craits.words import Voice, describe


class Terminal:
    """Scripted input lines and everything written, for one ``HumanSeat``."""

    def __init__(self, lines: Iterable[str]) -> None:
        self.lines = [f"{line}\n" for line in lines]
        self.out: list[str] = []

    def read(self) -> str:
        return self.lines.pop(0) if self.lines else ""

    def seat(self) -> HumanSeat:
        return HumanSeat("you", self.read, self.out.append, echo=True, width=80)

    @property
    def text(self) -> str:
        return "".join(self.out)


def _decide(pos: Position, *typed: str) -> tuple[Move, str]:
    """Ask the person (scripted) the position's decision; return the move and the transcript."""
    term = Terminal(typed)
    seat = term.seat()
    game = pos.build()
    table = Table("t", ("you", "random-1", "random-2"), game.rules, TimeControl())

    async def main() -> Move:
        await seat.start(table, 0)
        decision = Decision(table, 1, 0, game, game.legal_moves(), SeatClock(0.0), 0)
        return await seat.decide(decision)

    return bridge.run(main), term.text


def test_turn_shows_hand_top_card_seats_and_numbered_moves() -> None:
    move, text = _decide(position("count"), "0")
    assert move == Move.parse("play AS")
    assert "you were dealt AS 2C 7H 9D KC" in text
    assert "random-2 played 2H" in text and "the count is 2" in text
    assert "top card 2H" in text and "the count is at 2: play an A or a 2, or draw 2" in text
    assert "your hand: AS 2C 7H 9D KC" in text
    assert "0  play AS" in text and "1  play 2C" in text
    assert "you: 5 cards, total 0" in text and "random-2: 4 cards" in text


def test_an_illegal_entry_is_refused_with_the_reason_and_asked_again() -> None:
    move, text = _decide(position("play"), "play 2C", "99", "8D", "bogus words", "play 7H")
    assert move == Move.parse("play 7H")
    assert "not accepted: illegal move 'play 2C': 2C is not in your hand (rule: a turn)" in text
    assert "not accepted: there is no move 99: choose 0 to 5" in text
    assert "not accepted: 8D can be played 4 ways" in text
    assert "not accepted: bad move 'bogus words'" in text
    assert text.count("your move: ") == 5


def test_a_bare_card_plays_the_listed_move_with_its_announcement() -> None:
    move, _ = _decide(position("one-card"), "7H")
    assert move == Move.parse("play 7H one-card")


def test_a_missing_announcement_is_warned_once_then_allowed() -> None:
    move, text = _decide(position("one-card"), "play 7H", "play 7H")
    assert move == Move.parse("play 7H")
    assert "'play 7H' does not announce one card: that costs 2 penalty cards" in text


def test_upturned_eight_asks_the_dealer_for_a_suit() -> None:
    move, text = _decide(position("upturn-8"), "suit h")
    assert move == Move.parse("suit H")
    assert "you turned up 8D as dealer: name the suit" in text


def test_quit_ends_the_game_cleanly_without_a_result() -> None:
    term = Terminal(["0", "0", "q"])
    human = term.seat()
    rules = preset("standard").replace(short_game=True)
    spec = GameSpec("q", rules, 3, TimeControl(86_400_000, 0))
    bot = InProcessSeat("first", lambda view, rules: view.legal_moves[0])

    async def main() -> bool:
        with human.quit_scope:
            await play_game(spec, [human, bot])
            return True
        return False

    assert bridge.run(main) is False
    assert human.quitted
    assert term.text.rstrip().endswith("you quit: the game is abandoned.")


def test_end_of_input_quits_too() -> None:
    term = Terminal([])
    human = term.seat()
    spec = GameSpec("eof", preset("standard"), 3, TimeControl(86_400_000, 0))
    bot = InProcessSeat("first", lambda view, rules: view.legal_moves[0])

    async def main() -> None:
        with human.quit_scope:
            await play_game(spec, [human, bot])

    bridge.run(main)
    assert "end of input: the game is abandoned." in term.text


def test_parse_entry_forms() -> None:
    legal = [Move.parse("play 7H"), Move.parse("play 8D suit=C"), Move.parse("play 8D suit=H")]
    assert parse_entry("0", legal) == legal[0]
    assert parse_entry("play 8D suit=h", legal) == legal[2]
    assert parse_entry("7h", legal) == legal[0]
    assert parse_entry("2C", legal) == Move.parse("play 2C")  # judged later: not in the hand
    with pytest.raises(EntryError, match="choose 0 to 2"):
        parse_entry("3", legal)
    with pytest.raises(EntryError, match="8D can be played 2 ways"):
        parse_entry("8d", legal)


def test_events_read_in_the_right_person() -> None:
    who = player_voice(("you", "random"), 0)
    assert describe(Event("hand_start", 1, (), 8, 1), who) == "hand 1: random deals 8 cards each"
    assert describe(Event("hand_start", 0, (), 1, 8), who) == "hand 8: you deal 1 card each"
    assert describe(Event("skip", 0, detail="four"), who) == "you are skipped by the 4 just played"
    # the reason is said as a cause: "drew 1 card (a 5)" read as if the card drawn was a 5
    assert describe(Event("draw", 1, (), 2, -1, "seven", True), who) == (
        "random drew 2 cards because of the 7 just played"
    )
    assert describe(Event("draw", 0, (Card.parse("5H"),), 1, -1, "five"), who) == (
        "you drew 5H because of the 5 just played"
    )
    assert describe(Event("draw", 1, (), 1, -1, "unable", True), who) == (
        "random drew 1 card, unable to play"
    )
    assert describe(Event("draw", 1, (), 1, -1, "five", True), Voice(("you", "random"))) == (
        "random draws 1 card because of the 5 just played"
    )
    assert describe(Event("shuffle", value=52), who) is None


def test_a_bad_card_is_quoted_as_typed() -> None:
    legal = position("play").build().legal_moves()
    with pytest.raises(MoveError, match="bad card 'ZZ'"):
        parse_entry("play ZZ", legal)
    with pytest.raises(MoveError, match="starts with 'Fly'"):
        parse_entry("Fly 7H", legal)


def test_a_long_warning_wraps_on_words_at_80_columns() -> None:
    move, text = _decide(position("one-card"), "play 7H", "play 7H")
    assert move == Move.parse("play 7H")
    lines = text.splitlines()
    assert max(len(line) for line in lines) <= 80
    start = next(i for i, line in enumerate(lines) if "does not announce" in line)
    warning = " ".join(lines[start:start + 2])  # one warning, two lines, not a word split
    assert warning == ("'play 7H' does not announce one card: that costs 2 penalty cards and a "
                       "turn. Type 'play 7H one-card' to announce, or the same move again to "
                       "play it anyway.")
    assert any(line.startswith("answer with a move's number") for line in lines)  # the help


def test_wrap_line_keeps_words_whole_and_hangs_bullets() -> None:
    line = "  · " + "word " * 30 + "x" * 90
    wrapped = wrap_line(line, 40).split("\n")
    assert wrapped[0].startswith("  · word") and all(w.startswith("    ") for w in wrapped[1:])
    assert " ".join(w.strip() for w in wrapped).replace("· ", "", 1).split() == (
        line.replace("· ", "", 1).split()
    )
    assert all(len(w) <= 40 for w in wrapped if "x" not in w) and "x" * 90 in wrapped[-1]
    assert wrap_line("short", 40) == "short"
