"""What the store keeps of a played game, and how the game is rebuilt from it.

The engine is deterministic: rules, seat count, seed and the moves replay a game exactly, events
included. So the store keeps, per game, only what cannot be recomputed, as one compressed value
(``games.record``): the moves, each move's answer time, which moves the failure policy chose,
and the faults (strikes, forfeits, noted errors). Rules, seed and seats are columns of the
game's row. Readers rebuild the events by replaying (``rebuild``), and check the rebuilt game
against the outcome stored beside it.

The value's format is ``record_format.py``'s: a move is stored as its place among the legal
moves of its decision, so the order of ``Game.legal_moves()`` is part of the format, as the deal
is: an engine that changed either would replay old records differently, which the check against
the stored outcome reports (``check_outcome``). Stores before schema version 5 kept one row
per event instead: ``legacy.py`` reads those and converts them.
"""

from __future__ import annotations

from collections.abc import Iterable, Mapping, Sequence
from dataclasses import dataclass, field
from typing import TYPE_CHECKING, Any, Final

from craits.engine import Game, IllegalMove, Move, Rules
from craits.engine.record import choice_of, move_at

if TYPE_CHECKING:  # for annotations only: reading stored games must not import trio
    from craits.referee.game import MoveRecord
    from craits.referee.policy import Fault

FAULT_ACTIONS: Final = ("strike", "forfeit", "fault")


class RecordError(ValueError):
    """A stored record cannot be read back (damaged, another format, a move that does not
    parse), or its moves do not rebuild a game."""


@dataclass(frozen=True, slots=True)
class LoggedMove:
    """One move the referee applied, read back, with who made it and how."""

    seat: int
    move: Move
    decision: int
    """The referee's decision number (0 when the record does not say)."""
    elapsed_ms: float | None
    defaulted: bool
    """True when the failure policy chose the move for a seat that did not answer in time."""


@dataclass(frozen=True, slots=True)
class LoggedFault:
    """A strike, forfeit or other fault the referee logged against a seat, read back."""

    action: str
    """``strike``, ``forfeit`` or ``fault`` (noted, no sanction)."""
    seat: int
    reason: str
    """What went wrong: timeout, bad_replies, crash, disconnect, error."""
    detail: str
    decision: int


@dataclass(frozen=True, slots=True)
class PlayLog:
    """What the referee noted of a game's play that the engine cannot recompute.

    Move ``i`` is the legal move ``choices[i]`` (``engine.choice_of``), answered in
    ``elapsed_ms[i]`` at decision ``decisions[i]``; ``defaulted`` holds the indices of the
    moves the failure policy chose.
    """

    choices: tuple[int, ...] = ()
    elapsed_ms: tuple[float | None, ...] = ()
    decisions: tuple[int, ...] = ()
    defaulted: frozenset[int] = frozenset()
    faults: tuple[LoggedFault, ...] = ()

    @staticmethod
    def of(moves: Sequence[MoveRecord], faults: Iterable[Fault]) -> PlayLog:
        """The referee's record of a game (``PlayedGame.moves`` and ``.faults``)."""
        return PlayLog(
            tuple(m.choice for m in moves), tuple(m.elapsed_ms for m in moves),
            tuple(m.decision_id for m in moves),
            frozenset(i for i, m in enumerate(moves) if m.defaulted),
            tuple(LoggedFault(_action(f), f.seat, f.kind, f.detail, f.decision_id)
                  for f in faults),
        )

    @staticmethod
    def of_moves(rules: Rules, players: int, seed: int, moves: Sequence[LoggedMove],
                 faults: Iterable[LoggedFault]) -> PlayLog:
        """The same from moves read back (a store before records, converted): replays the
        game to find each move's choice (``RecordError`` if a move is illegal)."""
        game, choices = Game.new(rules, players, seed), []
        for i, m in enumerate(moves):
            try:
                choices.append(choice_of(game.legal_moves(), m.move))
                game.apply(m.move)
            except (ValueError, IllegalMove):
                raise RecordError(f"move {i + 1} ({m.move}) is illegal") from None
        return PlayLog(tuple(choices), tuple(m.elapsed_ms for m in moves),
                       tuple(m.decision for m in moves),
                       frozenset(i for i, m in enumerate(moves) if m.defaulted), tuple(faults))


@dataclass(frozen=True, slots=True)
class FinishedGame:
    """A played game of a scheduled job, ready to be recorded."""

    tournament_id: str
    game_index: int
    totals: tuple[int, ...]
    places: tuple[int, ...]
    strikes: tuple[int, ...]
    forfeited: tuple[bool, ...]
    started: float
    """Unix time the game started (``time.time()``)."""
    finished: float
    play: PlayLog = PlayLog()
    outcome: Mapping[str, Any] = field(default_factory=dict)
    """Further JSON-ready facts of the outcome (hands played, hand scores, pressure points),
    which a rebuilt game is checked against."""


def _action(fault: Fault) -> str:
    return "forfeit" if fault.forfeit else "strike" if fault.strike else "fault"


# ---------------------------------------------------------------------- rebuilding
@dataclass(frozen=True, slots=True)
class Rebuilt:
    """A stored game replayed: the finished engine game, and each move with its seat."""

    game: Game
    moves: tuple[LoggedMove, ...]
    faults: tuple[LoggedFault, ...]


def rebuild(rules: Rules, players: int, seed: int, play: PlayLog) -> Rebuilt:
    """Replay ``play`` from the game's rules and seed; ``RecordError`` if a choice is out of
    range or the moves stop before the game ends. Seats are the engine's: whoever was to
    act."""
    game = Game.new(rules, players, seed)
    moves = []
    for i, choice in enumerate(play.choices):
        if game.is_over:
            raise RecordError(f"move {i + 1} comes after the end of the game")
        seat = game.to_act
        try:
            move = move_at(game.legal_moves(), choice)
        except IndexError:
            raise RecordError(f"move {i + 1} is legal move {choice}, and there are only "
                              f"{len(game.legal_moves())}") from None
        game.apply(move)
        moves.append(LoggedMove(seat, move, play.decisions[i], play.elapsed_ms[i],
                                i in play.defaulted))
    if not game.is_over:
        raise RecordError(f"the {len(play.choices)} stored moves stop before the end of the "
                          "game")
    return Rebuilt(game, tuple(moves), play.faults)


def check_outcome(game: Game, totals: Sequence[int], outcome: Mapping[str, Any]) -> None:
    """``RecordError`` unless the rebuilt ``game`` ended as stored: the totals, and the hands
    played and hand scores where the stored outcome has them."""
    ended = game.outcome
    assert ended is not None, "check_outcome takes a finished game"
    found = {"totals": list(ended.totals), "hands_played": ended.hands_played,
             "hand_scores": [list(h) for h in ended.hand_scores]}
    stored = {"totals": list(totals),
              **{k: outcome[k] for k in ("hands_played", "hand_scores") if k in outcome}}
    for key, value in stored.items():
        if found[key] != value:
            raise RecordError(f"the replayed game does not end as stored: {key} "
                              f"{found[key]} replayed, {value} stored")
