"""Engine events in plain words, for people reading a finished game.

One small phrase function per event kind, in a table. A phrase shows the cards an event carries
and nothing else, so a redacted event (``Event.seen_by``: another seat's deal or draw with its
cards removed) reads "is dealt 8 cards" and gives nothing away: hiding is the engine's job, the
words only follow it. Events that say nothing to a reader (the shuffle) have no phrase.
"""

from __future__ import annotations

from collections.abc import Callable, Sequence
from typing import Final

from craits.engine import Event, format_cards

SUIT_NAMES: Final = ("clubs", "diamonds", "hearts", "spades")
DRAW_REASONS: Final = {
    "unable": "could not play", "count": "the count", "five": "a 5", "seven": "a 7",
    "jack": "jacks", "queen": "the queen of spades", "penalty": "penalty",
}
SKIP_REASONS: Final = {
    "four": "a 4", "queen": "the queen of spades", "jack": "jacks",
    "forfeit": "a forfeited turn",
}
PENALTY_REASONS: Final = {
    "one_card": "not announcing one card", "deal_announce": "not announcing on the 1-card deal",
}
HAND_END_REASONS: Final = {
    "out": "a player went out", "pressure": "shuffle pressure with nothing to reshuffle",
    "cap": "the turn cap",
}

Names = Sequence[str]
"""What to call each seat (indexed by seat)."""
Phrase = Callable[[Event, Names], str]


def describe(event: Event, names: Names) -> str | None:
    """``event`` as one sentence without a full stop, or None when it is not worth a line."""
    phrase = _PHRASES.get(event.kind)
    return phrase(event, names) if phrase else None


def cards_or_count(event: Event) -> str:
    """The event's cards, or how many there were when they are hidden from this reader."""
    if event.cards:
        return format_cards(event.cards)
    return plural(event.value, "card")


def plural(n: int, word: str) -> str:
    """``1 card``, ``3 cards``."""
    return f"{n} {word}" if n == 1 else f"{n} {word}s"


def _who(event: Event, names: Names) -> str:
    return names[event.seat] if 0 <= event.seat < len(names) else f"seat {event.seat}"


def _dealer_draw(e: Event, n: Names) -> str:
    again = f" (tie-break, round {e.value})" if e.value > 1 else ""
    return f"{_who(e, n)} draws {cards_or_count(e)} for the first deal{again}"


def _play(e: Event, n: Names) -> str:
    text = f"{_who(e, n)} plays {cards_or_count(e)}"
    if e.aux >= 0:
        text += f" and names {SUIT_NAMES[e.aux]}"
    return text + (", announcing one card" if e.value else "")


def _draw(e: Event, n: Names) -> str:
    return f"{_who(e, n)} draws {cards_or_count(e)} ({DRAW_REASONS.get(e.detail, e.detail)})"


def _skip(e: Event, n: Names) -> str:
    return f"{_who(e, n)} loses a turn ({SKIP_REASONS.get(e.detail, e.detail)})"


def _king(e: Event, n: Names) -> str:
    if e.value == 3:
        return f"{_who(e, n)} must play 3 more cards (king)"
    return f"{_who(e, n)} has {plural(e.value, 'more card')} to play"


def _penalty(e: Event, n: Names) -> str:
    why = PENALTY_REASONS.get(e.detail, e.detail)
    lost = f" and loses {plural(e.aux, 'turn')}" if e.aux > 0 else ""
    return f"{_who(e, n)} is penalised for {why}: {plural(e.value, 'card')}{lost}"


def _hand_score(e: Event, n: Names) -> str:
    left = f" with {format_cards(e.cards)} left" if e.cards else " (went out)"
    return f"{_who(e, n)} scores {e.value:+d}{left}; total {e.aux}"


def _direction(value: int) -> str:
    return "clockwise" if value > 0 else "counter-clockwise"


_PHRASES: Final[dict[str, Phrase]] = {
    "dealer_draw": _dealer_draw,
    "first_dealer": lambda e, n: f"{_who(e, n)} deals first",
    "hand_start": lambda e, n: f"hand {e.aux}: {_who(e, n)} deals {plural(e.value, 'card')} each",
    "deal": lambda e, n: f"{_who(e, n)} is dealt {cards_or_count(e)}",
    "upturn": lambda e, n: f"{_who(e, n)} turns up {cards_or_count(e)}",
    "play": _play,
    "choose_suit": lambda e, n: f"{_who(e, n)} names {SUIT_NAMES[e.aux]}",
    "draw": _draw,
    "count": lambda e, n: f"the count is {e.value}",
    "count_end": lambda e, n: f"the count of {e.value} is over",
    "skip": _skip,
    "reverse": lambda e, n: f"play reverses: now {_direction(e.value)}",
    "king": _king,
    "penalty": _penalty,
    "reshuffle": lambda e, n: f"{plural(e.value, 'card')} of the discard pile become the stock",
    "pressure": lambda e, n: (f"{_who(e, n)} meets an empty stock: shuffle pressure, "
                              f"+{e.value} points (time {e.aux})"),
    "went_out": lambda e, n: f"{_who(e, n)} goes out",
    "hand_score": _hand_score,
    "hand_end": lambda e, n: (f"hand {e.value} ends: "
                              f"{HAND_END_REASONS.get(e.detail, e.detail)}"),
    "game_end": lambda e, n: f"the game ends after {plural(e.value, 'hand')}",
    "final": lambda e, n: f"{_who(e, n)} finishes with {e.value} points, place {e.aux}",
}
