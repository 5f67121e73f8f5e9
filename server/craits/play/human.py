"""A person at the terminal as a seat, and the game ``craits play`` runs: seat 0 against bots.

The person sees what ``observe`` gives seat 0 (in words, via ``narrate``) and answers with a
move's number in the list, its text form (``play 8C suit=H``) or just a card (``7H``). An answer
is judged by ``Decision.validate`` like any bot's, and a refused one is asked again with the
reason. Reading the terminal blocks, so it happens in a worker thread and trio keeps serving the
bots. ``q`` (or the end of input) cancels the game's scope: the game stops cleanly, bots are
stopped, and there is no result.
"""

from __future__ import annotations

import shutil
import sys
import textwrap
from collections.abc import Callable, Sequence
from pathlib import Path
from typing import Final

import trio

from craits.engine import Card, CardError, Game, IllegalMove, Move, MoveError, observe
from craits.hosting.match import unique_names
from craits.hosting.running import connect_all, running_bots
from craits.referee.game import GameSpec, PlayedGame, play_game
from craits.referee.seats import Decision, Seat, SeatResult, Table
from craits.words import describe_all

from .narrate import player_voice, turn_text

HUMAN_MOVE_MS: Final = 86_400_000
"""A day per decision: a person has no time limit (the time control is per game, so the bots
get it too)."""
QUIT_WORDS: Final = frozenset({"q", "quit", "exit"})
HELP: Final = (
    "answer with a move's number, the move itself ('play 7H', 'play 8C suit=H', 'draw', "
    "'suit H'), or just a card ('7H'); add 'one-card' to announce; q quits"
)

Reader = Callable[[], str]
"""Blocking read of one line, '' at the end of input (like ``sys.stdin.readline``)."""
Writer = Callable[[str], None]
"""Writes text as given (no newline added)."""


class EntryError(ValueError):
    """What the person typed names no move (before any legality check)."""


class HumanQuit(Exception):
    """The person quit while the seat was used outside ``quit_scope`` (tests, other loops)."""


def _stdout(text: str) -> None:
    sys.stdout.write(text)
    sys.stdout.flush()


class HumanSeat(Seat):
    """Seat played by a person. One game per seat object (``quit_scope`` is entered once)."""

    def __init__(
        self, name: str = "you", read: Reader = sys.stdin.readline, write: Writer = _stdout,
        echo: bool | None = None, width: int | None = None,
    ) -> None:
        self.name = name
        self._read = read
        self._write = write
        self._width = width
        """Columns to wrap at; None: the terminal's at each line (``COLUMNS``, else 80)."""
        self._echo = (not sys.stdin.isatty()) if echo is None else echo
        self._seen = 0
        self._voice = player_voice((), 0)
        self.quit_scope = trio.CancelScope()
        """The runner wraps the game in this scope; quitting cancels it."""
        self.quitted = False
        self.input_ended = False
        """The game was abandoned because the input ran out, not because the person quit."""

    def say(self, text: str = "") -> None:
        """Text to the person, each line wrapped on words to the terminal's width: the terminal
        itself breaks a long line (the help, a warning) wherever the column runs out, mid-word."""
        width = self._width or shutil.get_terminal_size().columns
        self._write("\n".join(wrap_line(line, width) for line in text.split("\n")) + "\n")

    async def start(self, table: Table, seat: int) -> None:
        """Introduce the table and how to answer."""
        self._voice, self._seen = player_voice(table.players, seat), 0
        others = ", ".join(f"{n} (seat {i})" for i, n in enumerate(table.players) if i != seat)
        rules = table.rules
        self.say(f"Craits: you are seat {seat} against {others}; rules {rules.preset}, "
                 f"{len(rules.hands_in_game())} hands.")
        self.say(HELP + ".")

    async def decide(self, decision: Decision) -> Move:
        """Show the turn, then read answers until one is valid."""
        view = observe(decision.game, decision.seat, self._seen)
        self._seen = len(decision.game.events)
        self.say()
        self.say(turn_text(view, self._voice))
        return await self._answer(decision, view.legal_moves)

    async def update(self, table: Table, seat: int, game: Game) -> None:
        """Say what happened since the person last decided (a hand's end and scores)."""
        events = [e.seen_by(seat) for e in game.events[self._seen:]]
        self._seen = len(game.events)
        for line in describe_all(events, self._voice):
            self.say(f"  · {line}")

    async def finish(self, table: Table, seat: int, result: SeatResult) -> None:
        """Mark the end; the command prints the result table."""
        self.say("\ngame over.")

    async def _answer(self, decision: Decision, legal: Sequence[Move]) -> Move:
        warned: Move | None = None
        while True:
            entry = await self._prompt()
            if not entry:
                self.say(HELP)
                continue
            try:
                move = parse_entry(entry, legal)
                decision.validate(move)
            except (EntryError, MoveError, IllegalMove) as exc:
                self.say(f"not accepted: {exc}")
                continue
            if move not in legal and move != warned:
                warned = move
                self.say(_unannounced(move, decision))
                continue
            return move

    async def _prompt(self) -> str:
        """One stripped line; quits on q or at the end of input."""
        self._write("your move: ")
        line = await trio.to_thread.run_sync(self._read, abandon_on_cancel=True)
        if self._echo:
            self._write(line if line.endswith("\n") else line + "\n")
        entry = line.strip()
        if not line or entry.lower() in QUIT_WORDS:
            self.input_ended = not line
            await self._quit("end of input" if not line else "you quit")
        return entry

    async def _quit(self, why: str) -> None:
        self.quitted = True
        self.say(f"\n{why}: the game is abandoned.")
        self.quit_scope.cancel()
        await trio.lowlevel.checkpoint()
        raise HumanQuit(why)


def wrap_line(line: str, width: int) -> str:
    """``line`` broken on spaces into lines of at most ``width`` columns (a word longer than
    that stays whole), the continuation lines indented under the text: past the line's own
    indent, and past a "· " bullet."""
    if len(line) <= width:
        return line
    body = line.lstrip(" ")
    indent = line[: len(line) - len(body)]
    hanging = indent + ("  " if body.startswith("· ") else "")
    return "\n".join(textwrap.wrap(body, width, initial_indent=indent,
                                   subsequent_indent=hanging, break_long_words=False,
                                   break_on_hyphens=False)) or line


def parse_entry(entry: str, legal: Sequence[Move]) -> Move:
    """The move a person typed: a number in the list, a move's text form, or a bare card."""
    if entry.isdigit():
        index = int(entry)
        if index >= len(legal):
            raise EntryError(f"there is no move {index}: choose 0 to {len(legal) - 1}")
        return legal[index]
    try:
        card = Card.parse(entry)
    except CardError:
        return Move.parse(entry)
    playing = [m for m in legal if m.played == card]
    if len(playing) > 1:
        raise EntryError(f"{card} can be played {len(playing)} ways: type its number, or e.g. "
                         f"'{playing[-1]}'")
    return playing[0] if playing else Move.play(card)


def _unannounced(move: Move, decision: Decision) -> str:
    """The warning for a move that leaves one card without saying so."""
    cost = "1 penalty card" if decision.table.rules.idiot_card else "2 penalty cards and a turn"
    return (f"'{move}' does not announce one card: that costs {cost}. Type "
            f"'{move.announced(True)}' to announce, or the same move again to play it anyway.")


async def play_with_human(
    human: HumanSeat, specs: Sequence[str], spec: GameSpec, log_dir: Path,
    connect_timeout_s: float = 15.0,
) -> PlayedGame | None:
    """Seat 0 is ``human``, the rest are bot processes; None if the person quit.

    ``NotConnected`` and ``LaunchError`` pass through for the command to report.
    """
    async with running_bots(specs, unique_names(specs), log_dir) as running:
        await connect_all(running, connect_timeout_s)
        seats = [human, *(running.hub.seat_for(b.entry) for b in running.bots)]
        with human.quit_scope:
            return await play_game(spec, seats)
    return None
