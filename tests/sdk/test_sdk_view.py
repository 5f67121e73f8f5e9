"""Return forms of ``decide``, views of observations, history bookkeeping, in-process policy."""

from __future__ import annotations

import pytest

from craits.engine import Card, Event, Game, Move, observe, preset
from craits.protocol import events_to_pb
from craits.v1 import referee_pb2 as pb
from craits_sdk import BadDecision, Bot, GameInfo, View, to_move
from craits_sdk.inprocess import as_policy


def _legal() -> tuple[Move, ...]:
    return (Move.parse("play 7H"), Move.parse("play 8C suit=S"), Move.parse("play 8C suit=H"))


@pytest.mark.parametrize(
    ("choice", "expected"),
    [
        (Move.parse("play 7H"), "play 7H"),
        ("play 8C suit=H", "play 8C suit=H"),
        (2, "play 8C suit=H"),
        (Card.parse("8C"), "play 8C suit=S"),
        ("play 2D", "play 2D"),  # not listed: still sent, the referee explains the refusal
    ],
)
def test_decide_may_return_a_move_text_index_or_card(choice: object, expected: str) -> None:
    assert to_move(choice, _legal()) == Move.parse(expected)


@pytest.mark.parametrize(
    ("choice", "words"),
    [(3, "outside legal_moves"), (-1, "outside"), ("fly", "bad move"), (None, "NoneType"),
     (True, "bool"), (Card.parse("KS"), "no legal move plays KS")],
)
def test_unusable_returns_say_what_was_expected(choice: object, words: str) -> None:
    with pytest.raises(BadDecision, match=words):
        to_move(choice, _legal())


def test_view_from_observation_carries_every_field() -> None:
    rules = preset("spanish")
    game = Game.new(rules, 4, 3)
    obs = observe(game, game.to_act)
    view = View.from_observation(obs, rules, "t1")
    assert view.game_id == "t1" and view.rules is rules
    assert view.hand == obs.hand and view.top_card == obs.top_card
    assert view.legal_moves == obs.legal_moves and view.phase is obs.phase
    assert view.events == obs.events == view.new_events
    assert view.game.players == ("seat 0", "seat 1", "seat 2", "seat 3")


def test_history_skips_resent_events_and_counts_gaps() -> None:
    info = GameInfo("g", 0, (), preset("standard"))
    a, b, c, d = (Event("count", value=v) for v in range(4))
    assert info.record([a, b], 0) == 2
    assert info.record([b, c], 1) == 1
    assert info.record([a], 0) == 0
    assert info.record([d], 5) == 1 and info.latest(2) == (c, d)
    assert info.history == [a, b, c, d] and info.missing_events == 2 and info.next_index == 6


def test_wire_history_is_converted_when_read_and_survives_bad_events() -> None:
    info = GameInfo("g", 1, (), preset("standard"))
    good = [Event("play", 0, (Card.parse("7H"),), 0, -1), Event("draw", 1, (), 1, -1, "unable")]
    wire = events_to_pb(good, 0)
    bad = pb.Event(kind="play", index=2)
    bad.cards.add()  # rank and suit 0: no such card
    assert info.record_wire([*wire, wire[1], bad]) == 3
    assert info.history_len == 3 and info.next_index == 3
    assert info.history[:2] == good
    assert info.history[2] == Event("play", -1, detail="unreadable")


class _Counting(Bot):
    def __init__(self) -> None:
        self.starts: list[str] = []
        self.history_sizes: dict[str, list[int]] = {}

    def decide(self, view: View) -> int:
        self.history_sizes.setdefault(view.game_id, []).append(len(view.events))
        return 0

    def on_game_start(self, game: GameInfo) -> None:
        self.starts.append(game.game_id)


def test_in_process_policy_stitches_history_and_notices_new_games() -> None:
    rules = preset("standard")
    bots = [_Counting(), _Counting()]
    policies = [as_policy(bot) for bot in bots]  # one per seat, as the referee's seats hold them
    for seed in (1, 2):
        game = Game.new(rules, 2, seed)
        seen = [0, 0]
        for _ in range(30):
            seat = game.to_act
            obs = observe(game, seat, seen[seat])
            seen[seat] = len(game.events)
            move = policies[seat](obs, rules)
            assert policies[seat](obs, rules) == move  # asked again after a refusal: same game
            game.apply(move)
    for bot in bots:
        assert bot.starts == ["inprocess-1", "inprocess-2"]
        for sizes in bot.history_sizes.values():
            assert sizes == sorted(sizes) and sizes[0] > 0
