"""Illegal moves raise ``IllegalMove`` naming the rule, and leave the game exactly as it was."""

from __future__ import annotations

import random

import pytest

from craits.engine import CARDS, Game, IllegalMove, Move, MoveKind, Phase, preset

from .helpers import move, position, rules, snapshot

STOCK = "4C 5C 6C 7C 9C 10C"

# (description, position kwargs, move text, rule)
ILLEGAL = [
    ("card not in hand", dict(hands=["5D KC QC", "KH"]), "play 6D", "a turn"),
    ("matches nothing", dict(hands=["5D KC QC", "KH"]), "play KC", "a turn"),
    ("top suit after an eight changed it",
     dict(hands=["5D KC QC", "KH"], top="8D", active_suit="C"), "play 5D", "a turn"),
    ("eight without a suit", dict(hands=["8D KC QC", "KH"]), "play 8D", "eight"),
    ("nine naming a suit of the other colour", dict(hands=["9D KC QC", "KH"]), "play 9D suit=S",
     "nine"),
    ("nine naming its own suit", dict(hands=["9D KC QC", "KH"]), "play 9D suit=D", "nine"),
    ("unplayable nine naming the same colour", dict(hands=["9H KS QS", "KH"], top="5C"),
     "play 9H suit=D", "a turn"),
    ("suit on a plain card", dict(hands=["5D KC QC", "KH"]), "play 5D suit=H", "a turn"),
    ("draw while able", dict(hands=["5D KC QC", "KH"]), "draw", "a turn"),
    ("suit outside the upturn", dict(hands=["5D KC QC", "KH"]), "suit H", "upturned card"),
    ("play before naming the upturn's suit",
     dict(hands=["5D KC QC", "KH"], top="8D", phase=Phase.CHOOSE_SUIT), "play 5D",
     "upturned card"),
    ("draw before naming the upturn's suit",
     dict(hands=["5D KC QC", "KH"], top="8D", phase=Phase.CHOOSE_SUIT), "draw", "upturned card"),
    ("upturned nine: other colour",
     dict(hands=["5D KC QC", "KH"], top="9D", phase=Phase.CHOOSE_SUIT), "suit C", "nine"),
    ("count: a four", dict(hands=["4D AC QC", "KH"], top="2D", phase=Phase.COUNT, count=2),
     "play 4D", "the count"),
    ("count: an eight", dict(hands=["8D AC QC", "KH"], top="2D", phase=Phase.COUNT, count=2),
     "play 8D suit=H", "the count"),
    ("count: draw while holding an ace",
     dict(hands=["8D AC QC", "KH"], top="2D", phase=Phase.COUNT, count=2), "draw", "the count"),
    ("jacks: draw while holding a jack",
     dict(hands=["5D JC QC", "KH"], top="JD", phase=Phase.JACKS, jack_penalty=2,
          rules=rules(face_cards=True)), "draw", "jack"),
    ("jacks: a non-jack",
     dict(hands=["5D JC QC", "KH"], top="JD", phase=Phase.JACKS, jack_penalty=2,
          rules=rules(face_cards=True)), "play 5D", "jack"),
    ("false one-card", dict(hands=["5D KC QC", "KH"]), "play 5D one-card", "one card"),
    ("false one-card on a draw", dict(hands=["KC QC", "KH"]), "draw one-card", "one card"),
    ("false one-card on the upturn's suit",
     dict(hands=["5D KC QC", "KH"], top="8D", phase=Phase.CHOOSE_SUIT), "suit H one-card",
     "one card"),
    ("king sequence: must follow the last card",
     dict(hands=["5H KC QC", "KH"], top="KD", phase=Phase.KING, king_left=3,
          rules=rules(face_cards=True)), "play 5H", "a turn"),
]


@pytest.mark.parametrize(("desc", "where", "text", "rule"), ILLEGAL,
                         ids=[row[0] for row in ILLEGAL])
def test_illegal_move_names_the_rule_and_changes_nothing(
    desc: str, where: dict[str, object], text: str, rule: str
) -> None:
    game = position(stock=STOCK, **where)  # type: ignore[arg-type]
    game.legal_moves()
    before = snapshot(game)
    legal_before = list(game.legal_moves())
    with pytest.raises(IllegalMove) as checked:
        game.check(move(text))  # validating without applying gives the same answer
    assert checked.value.rule == rule
    with pytest.raises(IllegalMove) as exc:
        game.apply(move(text))
    assert exc.value.rule == rule, str(exc.value)
    assert exc.value.move == move(text)
    assert exc.value.reason and rule in str(exc.value)
    assert snapshot(game) == before
    assert game.legal_moves() == legal_before
    # The game still accepts a legal move afterwards.
    game.check(legal_before[0])
    game.apply(legal_before[0])


def test_move_after_the_game_is_over() -> None:
    game = position(["5D", "KH"], stock=STOCK, hand_index=14)
    game.apply(move("play 5D"))
    assert game.is_over and game.legal_moves() == []
    before = snapshot(game)
    with pytest.raises(IllegalMove) as exc:
        game.apply(move("draw"))
    assert exc.value.rule == "end of the game"
    assert snapshot(game) == before


def test_random_illegal_moves_in_real_games_change_nothing() -> None:
    """Every move that is not legal (nor a legal move without its announcement) is refused."""
    all_moves = [Move.parse(t) for t in ("draw", "draw one-card")]
    all_moves += [Move.choose_suit(s, f) for s in range(4) for f in (False, True)]
    for c in CARDS:
        for suit in range(-1, 4):
            for f in (False, True):
                all_moves.append(Move.play(c, suit, f))
    rng = random.Random(3)
    for seed in range(4):
        game = Game.new(preset("standard").replace(face_cards=seed % 2 == 1), 3 + seed, seed)
        for _ in range(150):
            if game.is_over:
                break
            legal = set(game.legal_moves())
            tolerated = legal | {m.announced(False) for m in legal if m.one_card}
            for m in rng.sample(all_moves, 12):
                if m in tolerated:
                    continue
                before = snapshot(game)
                with pytest.raises(IllegalMove):
                    game.apply(m)
                assert snapshot(game) == before
            game.apply(rng.choice(sorted(legal)))


@pytest.mark.parametrize("move", [Move(MoveKind.PLAY, 60), Move(MoveKind.PLAY, -1),
                                  Move(MoveKind.PLAY, 3, 9)])
def test_hand_built_move_naming_no_real_card_is_illegal_not_a_crash(move: Move) -> None:
    game = Game.new(preset("standard"), 3, 1)
    with pytest.raises(IllegalMove, match="no such card or suit"):
        game.check(move)
