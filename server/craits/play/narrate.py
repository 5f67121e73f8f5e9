"""A game in plain words for a person at the terminal (``craits play``): events and the table.

Bots read the structured log; a person needs "random played 7H" and "the count is 4". Events are
told by the shared phrase table (``craits.words``) in the player's voice (``player_voice``: the
person is "you", what players did is in the past tense); this module adds what only a player at
the table needs: the public state and the decision in front of them. Only what the viewer may see
is ever shown: the text is built from ``observe`` output, whose events are redacted.
"""

from __future__ import annotations

from collections.abc import Sequence

from craits.engine import CARDS, Observation, Phase, format_cards
from craits.words import SUIT_NAMES, Voice, describe_all, direction, plural


def player_voice(players: Sequence[str], seat: int) -> Voice:
    """How the person at ``seat`` is told the game: "you", and what was done in the past tense."""
    return Voice(tuple(players), viewer=seat, past=True)


def _situation(view: Observation) -> str:
    """What the phase asks of the seat to act, in one line."""
    top = CARDS[view.top_card]
    phrases = {
        Phase.COUNT: f"the count is at {view.count}: play an A or a 2, or draw {view.count}",
        Phase.JACKS: f"jacks are pending: play a J to pass them on, or draw {view.jack_penalty}"
        " and lose the turn",
        Phase.KING: f"king run: {plural(view.king_left, 'more card')} to play, each on the last",
        Phase.CHOOSE_SUIT: f"you turned up {top} as dealer: name the suit",
    }
    return phrases.get(view.phase, "play a card of the same rank or the active suit, or an 8")


def table_lines(view: Observation, who: Voice) -> list[str]:
    """The public state: hand number, dealer, direction, top card, every seat, the situation."""
    seats = "   ".join(
        f"{who.name(s)}: {plural(view.hand_sizes[s], 'card')}, total {view.totals[s]}"
        + (f", skips {view.forfeits[s]}" if view.forfeits[s] else "")
        for s in range(view.players)
    )
    return [
        f"hand {view.hand_number} of {view.hands_in_game} · dealer {who.name(view.dealer)} · "
        f"play goes {direction(view.direction)} · stock {view.stock_size}",
        f"top card {CARDS[view.top_card]} · active suit {SUIT_NAMES[view.active_suit]}",
        seats,
        _situation(view),
    ]


def turn_text(view: Observation, who: Voice) -> str:
    """Everything a person needs to decide: recent events, the table, the hand, numbered moves."""
    recent = [f"  · {line}" for line in describe_all(view.events, who)]
    moves = [f"  {i:>3}  {m}" for i, m in enumerate(view.legal_moves)]
    return "\n".join([
        *recent,
        "",
        *table_lines(view, who),
        f"your hand: {format_cards(list(view.hand))}",
        "your moves:",
        *moves,
    ])
