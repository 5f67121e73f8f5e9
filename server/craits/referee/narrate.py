"""Game events and observations in plain words, for a person at the terminal (``craits play``).

Bots read the structured log; a person needs "random played 7H" and "the count is 4". Each
event kind has one small phrase function in a table (no ``if`` tower), and only what the viewer
may see is ever shown: the text is built from ``observe`` output, whose events are redacted.
"""

from __future__ import annotations

from collections.abc import Callable, Sequence
from typing import Final

from craits.engine import CARDS, Event, Observation, Phase, format_cards

SUIT_NAMES: Final = ("clubs ♣", "diamonds ♦", "hearts ♥", "spades ♠")
DRAW_WHY: Final = {
    "unable": "could not play", "count": "the count", "five": "a 5", "seven": "a 7",
    "jack": "jacks", "queen": "the queen of spades", "penalty": "penalty",
}


class Names:
    """How seats are called from one viewer's side: "you" for the viewer, bot names otherwise."""

    def __init__(self, players: Sequence[str], viewer: int) -> None:
        self.players = tuple(players)
        self.viewer = viewer

    def __call__(self, seat: int) -> str:
        if seat == self.viewer:
            return "you"
        return self.players[seat] if 0 <= seat < len(self.players) else f"seat {seat}"

    def does(self, seat: int, verb: str) -> str:
        """Subject and present-tense verb that agree: "random deals", "you deal"."""
        if seat != self.viewer:
            return f"{self(seat)} {verb}"
        return f"you {_BASE_FORMS.get(verb, verb.removesuffix('s'))}"


_BASE_FORMS: Final = {"is": "are", "has": "have"}


Phrase = Callable[[Event, Names], str | None]


def _cards(e: Event) -> str:
    return format_cards(list(e.cards))


def _plural(n: int, word: str) -> str:
    return f"{n} {word}" if n == 1 else f"{n} {word}s"


def _deal(e: Event, who: Names) -> str | None:
    return f"you were dealt {_cards(e)}" if e.seat == who.viewer else None


def _play(e: Event, who: Names) -> str:
    text = f"{who(e.seat)} played {_cards(e)}"
    if e.aux >= 0:
        text += f" and named {SUIT_NAMES[e.aux]}"
    return text + (" — “one card!”" if e.value else "")


def _draw(e: Event, who: Names) -> str:
    shown = f": {_cards(e)}" if e.cards else ""
    why = DRAW_WHY.get(e.detail, e.detail)
    return f"{who(e.seat)} drew {_plural(e.value, 'card')} ({why}){shown}"


def _penalty(e: Event, who: Names) -> str:
    lost = " and a lost turn" if e.aux else ""
    return f"{who(e.seat)} did not announce one card: {_plural(e.value, 'penalty card')}{lost}"


def _hand_score(e: Event, who: Names) -> str:
    left = f" for {_cards(e)}" if e.cards else " (went out)"
    return f"{who.does(e.seat, 'scores')} {e.value}{left}; total {e.aux}"


_PHRASES: Final[dict[str, Phrase]] = {
    "dealer_draw": lambda e, who: f"{who(e.seat)} drew {_cards(e)} for the first deal",
    "first_dealer": lambda e, who: f"{who.does(e.seat, 'deals')} first",
    "hand_start": lambda e, who: f"hand {e.aux}: {who.does(e.seat, 'deals')} "
    f"{_plural(e.value, 'card')} each",
    "deal": _deal,
    "upturn": lambda e, who: f"{who(e.seat)} turned up {_cards(e)}",
    "play": _play,
    "choose_suit": lambda e, who: f"{who(e.seat)} named {SUIT_NAMES[e.aux]}",
    "draw": _draw,
    "count": lambda e, who: f"the count is {e.value}",
    "count_end": lambda e, who: f"the count of {e.value} ends on {who(e.seat)}",
    "skip": lambda e, who: f"{who.does(e.seat, 'is')} skipped ({e.detail})",
    "reverse": lambda e, who: "play now goes "
    + ("clockwise" if e.value > 0 else "counter-clockwise"),
    "king": lambda e, who: f"{who(e.seat)} must play {_plural(e.value, 'more card')} (king)",
    "penalty": _penalty,
    "reshuffle": lambda e, who: f"the discard pile is shuffled into a new stock ({e.value})",
    "pressure": lambda e, who: f"{who.does(e.seat, 'pays')} {e.value} points of shuffle "
    "pressure",
    "went_out": lambda e, who: f"{who(e.seat)} went out!",
    "hand_score": _hand_score,
    "hand_end": lambda e, who: f"hand {e.value} is over ({e.detail})",
    "game_end": lambda e, who: f"the game is over after {e.value} hands",
    "final": lambda e, who: f"{who(e.seat)}: total {e.value}, place {e.aux}",
}


def describe(event: Event, who: Names) -> str | None:
    """One event in words, or None for bookkeeping a person does not need (a shuffle)."""
    phrase = _PHRASES.get(event.kind)
    return phrase(event, who) if phrase else None


def describe_all(events: Sequence[Event], who: Names) -> list[str]:
    """The events worth saying, in order."""
    return [line for e in events if (line := describe(e, who)) is not None]


def _situation(view: Observation) -> str:
    """What the phase asks of the seat to act, in one line."""
    top = CARDS[view.top_card]
    phrases = {
        Phase.COUNT: f"the count is at {view.count}: play an A or a 2, or draw {view.count}",
        Phase.JACKS: f"jacks are pending: play a J to pass them on, or draw {view.jack_penalty}"
        " and lose the turn",
        Phase.KING: f"king run: {_plural(view.king_left, 'more card')} to play, each on the last",
        Phase.CHOOSE_SUIT: f"you turned up {top} as dealer: name the suit",
    }
    return phrases.get(view.phase, "play a card of the same rank or the active suit, or an 8")


def table_lines(view: Observation, who: Names) -> list[str]:
    """The public state: hand number, dealer, direction, top card, every seat, the situation."""
    way = "clockwise" if view.direction > 0 else "counter-clockwise"
    seats = "   ".join(
        f"{who(s)}: {_plural(view.hand_sizes[s], 'card')}, total {view.totals[s]}"
        + (f", skips {view.forfeits[s]}" if view.forfeits[s] else "")
        for s in range(view.players)
    )
    return [
        f"hand {view.hand_number} of {view.hands_in_game} · dealer {who(view.dealer)} · "
        f"play goes {way} · stock {view.stock_size}",
        f"top card {CARDS[view.top_card]} · active suit {SUIT_NAMES[view.active_suit]}",
        seats,
        _situation(view),
    ]


def turn_text(view: Observation, who: Names) -> str:
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
