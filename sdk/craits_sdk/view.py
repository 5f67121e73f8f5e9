"""``View``: everything a bot may know when it must decide, in engine types.

One value serves both roads into a bot: ``craits_sdk.wire`` builds it from a referee's
``DecisionRequest`` and ``View.from_observation`` builds it from an engine ``Observation`` (the
referee's in-process seats, offline play, tests). Cards are ``craits.engine.Card`` (an ``int``
whose ``str`` is ``10H``), moves are ``craits.engine.Move``, suits are engine indexes 0-3
(clubs, diamonds, hearts, spades), so a bot can use the engine's own helpers on what it sees.
"""

from __future__ import annotations

import random
from dataclasses import dataclass, replace

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


@dataclass(frozen=True, slots=True, eq=False)
class View:
    """One seat's view of one game at the moment it must decide (see the module docstring)."""

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
    move_ms: int = 0
    bank_ms: int = 0
    rejection: Rejection | None = None
    """Set when the previous answer to this same decision was refused; ``None`` otherwise."""
    raw: pb.DecisionRequest | None = None
    """The protobuf request this view came from (``None`` in process)."""

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
        return replace(self, rejection=rejection)

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
        """The view of ``obs`` once its ``added`` new events are in ``game``'s history."""
        return View(
            game=game,
            decision_id=decision_id,
            seat=obs.seat,
            players=obs.players,
            hand_number=obs.hand_number,
            hands_in_game=obs.hands_in_game,
            deal_size=obs.deal_size,
            dealer=obs.dealer,
            direction=obs.direction,
            phase=obs.phase,
            to_act=obs.to_act,
            hand=obs.hand,
            hand_sizes=obs.hand_sizes,
            stock_size=obs.stock_size,
            discard_size=obs.discard_size,
            top_card=obs.top_card,
            active_suit=obs.active_suit,
            count=obs.count,
            jack_penalty=obs.jack_penalty,
            king_left=obs.king_left,
            forfeits=obs.forfeits,
            totals=obs.totals,
            pressure_counts=obs.pressure_counts,
            legal_moves=obs.legal_moves,
            history_start=game.history_len - added,
            history_len=game.history_len,
            move_ms=move_ms,
            bank_ms=bank_ms,
            raw=raw,
        )
