"""A stored game replayed move by move, each move with the events it caused.

Which move caused which event is not written down anywhere. The engine knows: ``walk`` rebuilds
the game from its rules and seed, applies the stored moves one at a time and hands out each
move's events with the live game after it. Every event is compared with the game's events as it
goes (rebuilt from its record and checked against its stored outcome, or, in a store from
before records, its stored log), so a log that does not follow from its own moves (a different
engine version, a damaged file) stops the replay at the first difference instead of being shown
as if it were true.
"""

from __future__ import annotations

from collections.abc import Iterator
from dataclasses import dataclass

from craits.engine import Event, Game, IllegalMove
from craits.tournament.store.game_records import LoggedFault, LoggedMove

from .stored import ReplayMismatch, StoredGame

__all__ = ["ReplayMismatch", "Step", "steps", "walk"]


@dataclass(frozen=True, slots=True)
class Step:
    """One decision and what followed it, up to the next decision."""

    number: int
    """Moves applied so far: 0 for the opening (dealer draw, first deal), then 1, 2, ..."""
    decision: LoggedMove | None
    """The move applied at this step; None for the opening."""
    events: tuple[Event, ...]
    faults: tuple[LoggedFault, ...]
    """What the referee logged at this decision (strikes, forfeits), before the move."""


def walk(game: StoredGame) -> Iterator[tuple[Step, Game]]:
    """The opening, then every move, each with the live game right after it.

    The game object is the same one throughout and changes on the next iteration: read what
    you need from it before advancing.
    """
    live = Game.new(game.rules, len(game.seats), game.seed)
    yield Step(0, None, _new_events(game, live, 0), ()), live
    for number, decision in enumerate(game.decisions, start=1):
        before = len(live.events)
        _apply(game, live, number, decision)
        faults = tuple(f for f in game.faults if decision.decision and
                       f.decision == decision.decision)
        yield Step(number, decision, _new_events(game, live, before), faults), live
    if not live.is_over or len(live.events) != len(game.events):
        raise ReplayMismatch(f"game {game.game_index}: the stored moves do not finish the game "
                             f"(replayed {len(live.events)} of {len(game.events)} events)")


def steps(game: StoredGame) -> list[Step]:
    """Every step of ``walk`` without the live game (when only the events matter)."""
    return [step for step, _ in walk(game)]


def _apply(game: StoredGame, live: Game, number: int, decision: LoggedMove) -> None:
    where = f"game {game.game_index}, move {number} ({decision.move})"
    if live.is_over:
        raise ReplayMismatch(f"{where}: the game was already over")
    if live.to_act != decision.seat:
        raise ReplayMismatch(f"{where}: stored for seat {decision.seat}, "
                             f"but seat {live.to_act} was to act")
    try:
        live.apply(decision.move)
    except IllegalMove as exc:
        raise ReplayMismatch(f"{where}: {exc}") from None


def _new_events(game: StoredGame, live: Game, start: int) -> tuple[Event, ...]:
    """The live game's events from ``start`` on, checked against the stored ones."""
    new = live.events[start:]
    stored = game.events[start:start + len(new)]
    for offset, (mine, theirs) in enumerate(zip(new, stored, strict=False)):
        if mine.to_dict() != theirs:
            raise ReplayMismatch(
                f"game {game.game_index}: event {start + offset} differs from the stored log "
                f"(stored {dict(theirs)}, replayed {mine.to_dict()})")
    if len(stored) < len(new):
        raise ReplayMismatch(f"game {game.game_index}: the stored log ends at event "
                             f"{len(game.events)}, the replay goes on")
    return tuple(new)
