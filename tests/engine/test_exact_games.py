"""Games are exactly what they were: a digest of whole event logs, pinned.

The engine is tuned for speed and may run compiled (``craits.engine.COMPILED``); neither may
change a single event. The digest below was taken from the engine before that tuning, over
random-legal games of every preset and variant family at 2 to 10 players; CI runs this file on
both builds.
"""

import hashlib
import random

from craits.engine import CARDS, Game, Rules, preset
from craits.engine.state import shuffle

RULES: dict[str, Rules] = {
    "standard": preset("standard"),
    "gamerules": preset("gamerules"),
    "spanish": preset("spanish"),
    "face+draw_when_able": preset("standard").replace(
        face_cards=True, draw_when_able=True, idiot_card=True, max_turns_per_hand=300),
    "short+deal_announce": preset("gamerules").replace(
        short_game=True, announce_on_one_card_deal=True, remove_kings_queens=True,
        dealer_follows_direction=True, count_out_continues=True),
}
PINNED = "746b7d5788cf7f54b95a5ff24c6be04f6a7e34a9e78b793a2391e69a78c841e2"


def event_digest() -> str:
    """SHA-256 over the event logs of random-legal games (announcements sometimes forgotten)."""
    digest = hashlib.sha256()
    for name, rules in RULES.items():
        for players in (2, 3, 4, 7, 10):
            seed = len(name) * 100 + players
            game = Game.new(rules, players, seed)
            rng = random.Random(seed)
            while not game.is_over:
                move = rng.choice(game.legal_moves())
                if move.one_card and rng.random() < 0.2:
                    move = move.announced(False)
                game.apply(move)
            digest.update(repr([tuple(e) for e in game.events]).encode())
            outcome = game.outcome
            assert outcome is not None
            digest.update(repr((outcome.totals, outcome.places, outcome.hand_scores,
                                outcome.pressure_points, outcome.capped_hands)).encode())
    return digest.hexdigest()


def test_event_logs_match_the_pinned_digest() -> None:
    assert event_digest() == PINNED


def test_the_engines_shuffle_is_randoms_shuffle() -> None:
    """The engine's own Fisher-Yates (C when compiled) deals what ``random.shuffle`` deals."""
    for size in (0, 1, 2, 3, 44, 52, 104):
        for seed in range(20):
            ours, theirs = random.Random(seed), random.Random(seed)
            cards = [CARDS[i % 52] for i in range(size)]
            expected = list(cards)
            shuffle(ours, cards)
            theirs.shuffle(expected)
            assert cards == expected
            assert ours.getstate() == theirs.getstate()
