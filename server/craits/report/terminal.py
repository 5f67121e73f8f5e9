"""``craits replay`` text: a stored game hand by hand, in words, optionally from one seat.

Each hand is a block: a header, the deal (every seat's cards, or from one seat only its own
cards and the others' counts), every play, draw, count, penalty and pressure as a sentence, then
the hand's scores with the running totals. The game ends with places, strikes and forfeits as
the store recorded them (a forfeit puts a seat last whatever its points).

From one seat, every event passes through ``Event.seen_by`` first, the redaction the engine
applies to what a bot sees, so the text shows exactly what that seat saw during the game (cards
left in hand when a hand is scored are shown to all, as at the table).
"""

from __future__ import annotations

import re
from collections.abc import Sequence
from dataclasses import dataclass, field
from typing import Final

from craits.engine import Event, Game, format_cards
from craits.engine.rules_changes import rules_summary
from craits.tournament.store.game_records import LoggedFault
from craits.words import HAND_END_REASONS, Voice, cards_or_count, describe, plural

from .steps import Step, walk
from .stored import StoredGame

QUIET_KINDS: Final = frozenset({"shuffle", "game_end", "final"})
"""Events the text leaves out: a shuffle says nothing, the result comes from the store."""

_CARD: Final = re.compile(r"\b(?:10|[2-9AJQK])[DH]\b")


@dataclass(frozen=True, slots=True)
class Style:
    """ANSI emphasis for a terminal; ``Style(False)`` leaves text plain for pipes and files."""

    colour: bool = False

    def head(self, text: str) -> str:
        """A hand header or section title."""
        return f"\033[1m{text}\033[0m" if self.colour else text

    def dim(self, text: str) -> str:
        """Side notes (a seat's hand before its move)."""
        return f"\033[2m{text}\033[0m" if self.colour else text

    def warn(self, text: str) -> str:
        """Strikes, forfeits, defaulted moves."""
        return f"\033[33m{text}\033[0m" if self.colour else text

    def cards(self, text: str) -> str:
        """Red hearts and diamonds."""
        return _CARD.sub(lambda m: f"\033[31m{m.group(0)}\033[39m", text) if self.colour else text


def render(game: StoredGame, seat: int | None = None, hand: int | None = None,
           style: Style = Style()) -> list[str]:
    """The replay as lines: header, the hands (or only hand ``hand``), then the result."""
    text = _Text(game, seat, style)
    for step, live in walk(game):
        text.step(step, live)
    blocks = text.blocks if hand is None else {hand: text.blocks.get(hand, [])}
    lines = header(game, seat)
    for block in blocks.values():
        lines += ["", *block]
    if hand is None:
        lines += ["", *result_lines(game, style)]
    return [style.cards(line) for line in lines]


def header(game: StoredGame, seat: int | None) -> list[str]:
    """Who played, with which deal and rules, and from whose side the game is told."""
    job = game.job
    lines = [
        f"Game {game.game_index} of tournament {game.tournament_id} ({game.tournament_name}): "
        f"meeting {job.meeting_index}, deal set {job.deal_set}, seating {job.rotation}",
        f"Seed {game.seed}; rules: {rules_summary(game.rules)}",
        "Seats: " + ", ".join(f"{i} {name}" for i, name in enumerate(game.seats)),
    ]
    if seat is not None:
        lines.append(f"As seen by seat {seat} ({game.seats[seat]}): other seats' cards are "
                     "hidden unless they were shown at the table")
    return lines


def result_lines(game: StoredGame, style: Style = Style()) -> list[str]:
    """Places, totals, strikes and forfeits as recorded, then every fault."""
    r, width = game.result, _width(game.seats)
    lines = [style.head("Result"),
             f"  {'place':>5}  {'seat':>4}  {'bot':<{width}}  {'total':>6}  {'strikes':>7}"]
    for i in sorted(range(len(r.seats)), key=lambda i: (r.places[i], i)):
        note = "  forfeited" if r.forfeited[i] else ""
        lines.append(f"  {r.places[i]:>5}  {i:>4}  {r.seats[i]:<{width}}  {r.totals[i]:>6}  "
                     f"{r.strikes[i]:>7}{note}")
    lines += [style.warn(fault_line(f, game.seats)) for f in game.faults]
    return lines


def fault_line(fault: LoggedFault, names: Sequence[str]) -> str:
    """One strike, forfeit or fault in words."""
    who = names[fault.seat] if 0 <= fault.seat < len(names) else f"seat {fault.seat}"
    at = f" at decision {fault.decision}" if fault.decision else ""
    return f"  ! {fault.action} against {who}{at}: {fault.reason}: {fault.detail}"


def _width(names: Sequence[str]) -> int:
    return max(len(n) for n in names)


@dataclass(slots=True)
class _Text:
    """Folds the replay's steps into one block of lines per hand (0: before the first deal)."""

    game: StoredGame
    seat: int | None
    style: Style
    blocks: dict[int, list[str]] = field(default_factory=lambda: {0: []})
    hand: int = 0
    scores: list[Event] = field(default_factory=list)
    held: tuple[str, ...] = ()
    """The viewing seat's cards after the previous step."""

    @property
    def names(self) -> Sequence[str]:
        return self.game.seats

    def out(self, line: str) -> None:
        self.blocks.setdefault(self.hand, []).append(line)

    def step(self, step: Step, live: Game) -> None:
        """Write one step's lines, then note the viewing seat's hand for its next move."""
        d = step.decision
        if d is not None and d.seat == self.seat:
            self.out(self.style.dim(f"  ({self.names[d.seat]} holds {' '.join(self.held)})"))
        for fault in step.faults:
            self.out(self.style.warn(fault_line(fault, self.names)))
        if d is not None and d.defaulted:
            self.out(self.style.warn(f"  ! the referee moves for {self.names[d.seat]}: {d.move}"))
        for event in step.events:
            self.event(event if self.seat is None else event.seen_by(self.seat))
        if self.seat is not None:
            self.held = tuple(str(c) for c in sorted(live.hands[self.seat]))

    def event(self, e: Event) -> None:
        if e.kind == "hand_start":
            self.hand = e.aux
            total = len(self.game.rules.hands_in_game())
            self.out(self.style.head(f"Hand {e.aux} of {total}: {plural(e.value, 'card')} each, "
                                     f"{self.names[e.seat]} deals"))
        elif e.kind == "deal":
            self.out(f"  {self.names[e.seat]:<{_width(self.names)}}  {cards_or_count(e)}")
        elif e.kind == "hand_score":
            self.scores.append(e)
        elif e.kind == "hand_end":
            self.score_table(e)
        elif e.kind not in QUIET_KINDS:
            phrase = describe(e, Voice(self.names))
            if phrase:
                self.out(f"  {phrase}")

    def score_table(self, end: Event) -> None:
        """The hand's scores and running totals, one seat a line."""
        width = _width(self.names)
        self.out(f"  Hand {end.value} over ({HAND_END_REASONS.get(end.detail, end.detail)})")
        self.out(f"    {'':<{width}}  {'hand':>5}  {'total':>6}")
        for e in self.scores:
            left = f"left {format_cards(e.cards)}" if e.cards else "out"
            self.out(f"    {self.names[e.seat]:<{width}}  {e.value:>+5}  {e.aux:>6}  {left}")
        self.scores = []
