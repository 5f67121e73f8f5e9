"""``View``: everything a bot may know when it must decide, in engine types.

One value serves both roads into a bot: ``craits_sdk.wire`` builds it from a referee's
``DecisionRequest`` and ``View.from_observation`` builds it from an engine ``Observation`` (the
referee's in-process seats, offline play, tests). Cards are ``craits.engine.Card`` (an ``int``
whose ``str`` is ``10H``), moves are ``craits.engine.Move``, suits are engine indexes 0-3
(clubs, diamonds, hearts, spades), so a bot can use the engine's own helpers on what it sees.

A view is lazy: each field that describes the table (``OBSERVED``) is read from where the view
came from (the protobuf request, or the engine observation) the first time it is read, and kept
in the view. A bot pays only for what it reads: decoding whole requests eagerly cost an SDK bot
more than the rest of its work on a decision (``docs/benchmarks.md``), and most bots read a few
fields. Once read, a field is a plain slot, as cheap as any attribute; a view stays read-only.
"""

from __future__ import annotations

import random
from collections.abc import Callable
from dataclasses import FrozenInstanceError, dataclass
from typing import TYPE_CHECKING, Any, Final

from craits.engine import Card, Event, Game, Move, Observation, Phase, Rules
from craits.v1 import referee_pb2 as pb

from .game import GameInfo, default_names
from .worlds import WorldSampler


@dataclass(frozen=True, slots=True)
class Rejection:
    """Why the referee refused the previous answer to this decision."""

    reason: str
    """The referee's explanation, e.g. "illegal move 'play 7H': 7H is not in your hand"."""
    retries_left: int
    """How many more refused answers this decision tolerates before a strike."""
    move: Move | None
    """The move that was refused."""

    def __str__(self) -> str:
        return self.reason


NOT_OBSERVED: Final = {
    "legal_moves": "given when the view is made: every bot reads them, so they are decoded at once",
    "events": "the history is kept by the game (``GameInfo.history``), read through ``events``",
    "events_from": "likewise: ``history_start`` and ``history_len`` say where the view's starts",
}
"""``Observation``'s fields that a view does not read lazily from its source, and why."""
OBSERVED: Final = tuple(name for name in Observation._fields if name not in NOT_OBSERVED)
"""The fields a view reads from its source the first time each is read: every field of the
engine's ``Observation`` but ``NOT_OBSERVED``, under the same name and with the same value (a
field added to ``Observation`` is a view's slot at once; tests/protocol/
test_observation_fields.py holds the annotations below to it)."""
_OBSERVED: Final = frozenset(OBSERVED)
_GIVEN: Final = (
    "game", "decision_id", "legal_moves", "history_start", "history_len", "move_ms", "bank_ms",
    "rejection", "raw",
)
"""The fields a view is given when it is made."""

Decoder = Callable[[Any, str], Any]
"""How a view reads field ``name`` (one of ``OBSERVED``) from its source: ``getattr`` for an
engine ``Observation``; ``craits_sdk.wire`` has the one for a protobuf observation, which raises
``ValueError`` for a field that holds no valid value (a card that does not exist...)."""


class View:
    """One seat's view of one game at the moment it must decide (see the module docstring).

    Read-only, like the frozen dataclass it replaced; build one with ``View.of`` or
    ``View.from_observation`` (``craits_sdk.wire`` builds those of requests).
    """

    __slots__ = (*_GIVEN, "_source", "_decode", *OBSERVED)

    game: GameInfo
    """The game: id, seat, players, rules, the history so far."""
    decision_id: int
    seat: int
    players: int
    hand_number: int
    """1-based number of the hand being played."""
    hands_in_game: int
    deal_size: int
    dealer: int
    direction: int
    """1 = clockwise (to higher seat numbers), -1 = counter-clockwise."""
    phase: Phase
    """What kind of decision this is: PLAY, COUNT, JACKS, KING or CHOOSE_SUIT."""
    to_act: int
    hand: tuple[Card, ...]
    """This seat's cards, sorted."""
    hand_sizes: tuple[int, ...]
    """Every seat's number of cards."""
    stock_size: int
    discard_size: int
    top_card: Card
    active_suit: int
    """The suit to follow, 0-3 (the top card's unless an 8 or 9 named another)."""
    count: int
    """The count's value; 0 when no count is running."""
    jack_penalty: int
    king_left: int
    forfeits: tuple[int, ...]
    totals: tuple[int, ...]
    """Every seat's cumulative score (lower is better)."""
    pressure_counts: tuple[int, ...]
    legal_moves: tuple[Move, ...]
    """Every legal move, in the referee's order; the "one card" announcement is already set."""
    history_start: int
    """Where in ``game.history`` the events new to this view start."""
    history_len: int
    """How much of ``game.history`` existed when this view was made (``events`` stops there)."""
    move_ms: int
    bank_ms: int
    rejection: Rejection | None
    """Set when the previous answer to this same decision was refused; ``None`` otherwise."""
    raw: pb.DecisionRequest | None
    """The protobuf request this view came from (``None`` in process)."""
    _source: Any
    _decode: Decoder

    def __init__(
        self,
        game: GameInfo,
        decision_id: int,
        legal_moves: tuple[Move, ...],
        history: tuple[int, int],
        source: Any,
        decode: Decoder,
        *,
        move_ms: int = 0,
        bank_ms: int = 0,
        rejection: Rejection | None = None,
        raw: pb.DecisionRequest | None = None,
    ) -> None:
        """A view whose ``OBSERVED`` fields ``decode(source, name)`` gives when first read;
        ``history`` is ``(history_start, history_len)``."""
        set_ = object.__setattr__
        set_(self, "game", game)
        set_(self, "decision_id", decision_id)
        set_(self, "legal_moves", legal_moves)
        set_(self, "history_start", history[0])
        set_(self, "history_len", history[1])
        set_(self, "move_ms", move_ms)
        set_(self, "bank_ms", bank_ms)
        set_(self, "rejection", rejection)
        set_(self, "raw", raw)
        set_(self, "_source", source)
        set_(self, "_decode", decode)

    if not TYPE_CHECKING:  # to a type checker, a misspelt field stays an error

        def __getattr__(self, name: str) -> Any:
            """Read an ``OBSERVED`` field from the source; called only while its slot is empty."""
            if name not in _OBSERVED:
                raise AttributeError(f"'View' object has no attribute {name!r}")
            value = self._decode(self._source, name)
            object.__setattr__(self, name, value)
            return value

    def __setattr__(self, name: str, value: object) -> None:
        raise FrozenInstanceError(f"cannot assign to field {name!r}")

    def __delattr__(self, name: str) -> None:
        raise FrozenInstanceError(f"cannot delete field {name!r}")

    def __getstate__(self) -> dict[str, Any]:
        """Every field, read: a copy or a pickle needs neither the source nor its decoder."""
        return {name: getattr(self, name) for name in (*_GIVEN, *OBSERVED)}

    def __setstate__(self, state: dict[str, Any]) -> None:
        for name in _GIVEN:
            object.__setattr__(self, name, state[name])
        object.__setattr__(self, "_source", {name: state[name] for name in OBSERVED})
        object.__setattr__(self, "_decode", dict.__getitem__)

    def __repr__(self) -> str:
        shown = ("game_id", "decision_id", *OBSERVED, "legal_moves", "history_start",
                 "history_len", "move_ms", "bank_ms", "rejection")
        return f"View({', '.join(f'{name}={_shown(self, name)}' for name in shown)})"

    @property
    def game_id(self) -> str:
        """The game's id."""
        return self.game.game_id

    @property
    def rules(self) -> Rules:
        """The game's full rules configuration."""
        return self.game.rules

    @property
    def events(self) -> tuple[Event, ...]:
        """The game's whole history up to this decision (copied on access, so read it once)."""
        return tuple(self.game.history[: self.history_len])

    @property
    def new_events(self) -> tuple[Event, ...]:
        """History that arrived since this seat's previous view."""
        return tuple(self.game.history[self.history_start : self.history_len])

    def world_sampler(self) -> WorldSampler:
        """A sampler of worlds consistent with this view (read the hand's history once, then
        ``sample(rng)`` as often as a search needs); see ``craits_sdk.worlds``."""
        return WorldSampler(self)

    def sample_world(self, rng: random.Random) -> Game:
        """One engine ``Game`` that agrees with everything this seat has seen, the cards it
        cannot see dealt at random (``craits_sdk.worlds``): play on with ``legal_moves`` and
        ``apply``. For many samples of one view, ``world_sampler()`` once is faster."""
        return WorldSampler(self).sample(rng)

    def with_rejection(self, rejection: Rejection) -> View:
        """The same view, marked with why the previous answer was refused."""
        return View(
            self.game, self.decision_id, self.legal_moves,
            (self.history_start, self.history_len), self._source, self._decode,
            move_ms=self.move_ms, bank_ms=self.bank_ms, rejection=rejection, raw=self.raw,
        )

    @staticmethod
    def from_observation(
        obs: Observation,
        rules: Rules,
        game_id: str = "",
        *,
        game: GameInfo | None = None,
        decision_id: int = 0,
    ) -> View:
        """The view of an engine observation (in-process play).

        Pass the same ``game`` for every decision of a seat so that ``events`` holds the whole
        history: ``observe(game, seat, since=info.next_index)`` then sends only the increment.
        Without ``game`` a fresh one is made and ``events`` is what ``obs`` carries.
        """
        if game is None:
            game = GameInfo(game_id, obs.seat, default_names(obs.players), rules)
        added = game.record(obs.events, obs.events_from)
        return View.of(obs, game, added, decision_id=decision_id)

    @staticmethod
    def of(
        obs: Observation,
        game: GameInfo,
        added: int,
        *,
        decision_id: int = 0,
        move_ms: int = 0,
        bank_ms: int = 0,
        raw: pb.DecisionRequest | None = None,
    ) -> View:
        """The view of ``obs`` once its ``added`` new events are in ``game``'s history (its
        fields are read from ``obs`` as the bot reads them)."""
        length = game.history_len
        return View(game, decision_id, obs.legal_moves, (length - added, length), obs, getattr,
                    move_ms=move_ms, bank_ms=bank_ms, raw=raw)


def _shown(view: View, name: str) -> str:
    """``repr`` of a field for ``View.__repr__``, which must not fail on a malformed one."""
    try:
        return repr(getattr(view, name))
    except ValueError as exc:
        return f"<unreadable: {exc}>"
