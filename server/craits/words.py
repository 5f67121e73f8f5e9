"""Engine events in plain words: one phrase per event kind, told in a ``Voice``.

Both ways a person follows a game read from this one table: ``craits play`` (``referee.narrate``:
the player is "you" and what the players did is told in the past tense, "random played 7H") and
``craits replay``/``craits report`` (``report``: every seat by its name, all in the present tense,
"random plays 7H"). Only the voice differs. The game's own announcements (a hand starts, the
count is 4, a seat is skipped, the scores) are in the present in every voice.

A phrase shows the cards an event carries and nothing else, so a redacted event
(``Event.seen_by``: another seat's deal or draw with its cards removed) reads "is dealt 8 cards"
and gives nothing away: hiding is the engine's job, the words only follow it. Events that say
nothing to a reader (the shuffle) have no phrase. Depends on ``craits.engine`` only.
"""

from __future__ import annotations

from collections.abc import Callable, Sequence
from dataclasses import dataclass
from typing import Final

from .engine import Event, format_cards

SUIT_NAMES: Final = ("clubs ♣", "diamonds ♦", "hearts ♥", "spades ♠")
DRAW_REASONS: Final = {
    "unable": ", unable to play", "count": " for the count",
    "five": " because of the 5 just played", "seven": " because of the 7 just played",
    "jack": " because of the jacks just played",
    "queen": " because of the queen of spades just played", "penalty": " as a penalty",
}
"""Why a seat drew, said after the cards as a clause: in brackets, "drew 1 card (a 5)" read as
if the card drawn were a 5. Every clause holds in both tenses ("draws"/"drew")."""
SKIP_REASONS: Final = {
    "four": " by the 4 just played", "queen": " by the queen of spades just played",
    "jack": " by the jacks", "forfeit": ": a turn lost to a penalty",
}
"""Why a seat was skipped, as ``DRAW_REASONS`` says it."""
PENALTY_REASONS: Final = {
    "one_card": "not announcing one card", "deal_announce": "not announcing on the 1-card deal",
}
HAND_END_REASONS: Final = {
    "out": "a player went out", "pressure": "shuffle pressure with nothing to reshuffle",
    "cap": "the turn cap",
}

_VERBS: Final = {
    # he/she: (you, he/she in the past, you in the past)
    "deals": ("deal", "dealt", "dealt"),
    "draws": ("draw", "drew", "drew"),
    "finishes": ("finish", "finished", "finished"),
    "goes": ("go", "went", "went"),
    "has": ("have", "had", "had"),
    "is": ("are", "was", "were"),
    "meets": ("meet", "met", "met"),
    "must": ("must", "must", "must"),
    "names": ("name", "named", "named"),
    "plays": ("play", "played", "played"),
    "scores": ("score", "scored", "scored"),
    "turns": ("turn", "turned", "turned"),
}
"""Every verb a phrase uses, by its present form after "he"; ``Voice`` picks the form."""


@dataclass(frozen=True, slots=True)
class Voice:
    """Who tells the game to whom: what each seat is called, and the tense of what players do."""

    names: Sequence[str]
    """What to call each seat (indexed by seat)."""
    viewer: int | None = None
    """The seat told as "you" (``None``: every seat by its name)."""
    past: bool = False
    """Tell what players did in the past tense (a running account of a game being played)."""

    def name(self, seat: int) -> str:
        """"you" for the viewer, otherwise the seat's name (or "seat N" for an unknown seat)."""
        if seat == self.viewer:
            return "you"
        return self.names[seat] if 0 <= seat < len(self.names) else f"seat {seat}"

    def now(self, seat: int, verb: str) -> str:
        """Subject and present-tense verb that agree: "random deals", "you deal"."""
        return f"{self.name(seat)} {self.verb(seat, verb, tensed=False)}"

    def did(self, seat: int, verb: str) -> str:
        """Subject and the voice's tense: "random plays", "random played", "you played"."""
        return f"{self.name(seat)} {self.verb(seat, verb)}"

    def verb(self, seat: int, verb: str, *, tensed: bool = True) -> str:
        """``verb`` (its he/she present form, maybe with a particle: "turns up") as ``seat`` does
        it: in the voice's tense when ``tensed``, in the present otherwise."""
        head, space, rest = verb.partition(" ")
        you, past, you_past = _VERBS[head]
        if tensed and self.past:
            head = you_past if seat == self.viewer else past
        elif seat == self.viewer:
            head = you
        return head + space + rest


Phrase = Callable[[Event, Voice], str]


def describe(event: Event, voice: Voice) -> str | None:
    """``event`` as one sentence without a full stop, or None when it is not worth a line."""
    phrase = _PHRASES.get(event.kind)
    return phrase(event, voice) if phrase else None


def describe_all(events: Sequence[Event], voice: Voice) -> list[str]:
    """The events worth saying, in order."""
    return [line for e in events if (line := describe(e, voice)) is not None]


def cards_or_count(event: Event) -> str:
    """The event's cards, or how many there were when they are hidden from this reader."""
    if event.cards:
        return format_cards(event.cards)
    return plural(event.value, "card")


def plural(n: int, word: str) -> str:
    """``1 card``, ``3 cards``."""
    return f"{n} {word}" if n == 1 else f"{n} {word}s"


def direction(value: int) -> str:
    """The direction of play (``Event.value`` of a reverse, ``Observation.direction``)."""
    return "clockwise" if value > 0 else "counter-clockwise"


def _dealer_draw(e: Event, v: Voice) -> str:
    again = f" (tie-break, round {e.value})" if e.value > 1 else ""
    return f"{v.did(e.seat, 'draws')} {cards_or_count(e)} for the first deal{again}"


def _play(e: Event, v: Voice) -> str:
    text = f"{v.did(e.seat, 'plays')} {cards_or_count(e)}"
    if e.aux >= 0:
        text += f" and {v.verb(e.seat, 'names')} {SUIT_NAMES[e.aux]}"
    return text + (", announcing one card" if e.value else "")


def _draw(e: Event, v: Voice) -> str:
    why = DRAW_REASONS.get(e.detail, f" ({e.detail})")
    return f"{v.did(e.seat, 'draws')} {cards_or_count(e)}{why}"


def _skip(e: Event, v: Voice) -> str:
    why = SKIP_REASONS.get(e.detail, f" ({e.detail})")
    return f"{v.now(e.seat, 'is')} skipped{why}"


def _king(e: Event, v: Voice) -> str:
    if e.value == 3:
        return f"{v.now(e.seat, 'must')} play 3 more cards (king)"
    return f"{v.now(e.seat, 'has')} {plural(e.value, 'more card')} to play"


def _penalty(e: Event, v: Voice) -> str:
    why = PENALTY_REASONS.get(e.detail, e.detail)
    lost = f" and {plural(e.aux, 'lost turn')}" if e.aux > 0 else ""
    return f"{v.did(e.seat, 'is')} penalised for {why}: {plural(e.value, 'card')}{lost}"


def _hand_score(e: Event, v: Voice) -> str:
    left = f" with {format_cards(e.cards)} left" if e.cards else " (went out)"
    return f"{v.now(e.seat, 'scores')} {e.value:+d}{left}; total {e.aux}"


_PHRASES: Final[dict[str, Phrase]] = {
    "dealer_draw": _dealer_draw,
    "first_dealer": lambda e, v: f"{v.now(e.seat, 'deals')} first",
    "hand_start": lambda e, v: f"hand {e.aux}: {v.now(e.seat, 'deals')} "
    f"{plural(e.value, 'card')} each",
    "deal": lambda e, v: f"{v.did(e.seat, 'is')} dealt {cards_or_count(e)}",
    "upturn": lambda e, v: f"{v.did(e.seat, 'turns up')} {cards_or_count(e)}",
    "play": _play,
    "choose_suit": lambda e, v: f"{v.did(e.seat, 'names')} {SUIT_NAMES[e.aux]}",
    "draw": _draw,
    "count": lambda e, v: f"the count is {e.value}",
    "count_end": lambda e, v: f"the count of {e.value} ends on {v.name(e.seat)}",
    "skip": _skip,
    "reverse": lambda e, v: f"play reverses: now {direction(e.value)}",
    "king": _king,
    "penalty": _penalty,
    "reshuffle": lambda e, v: f"{plural(e.value, 'card')} of the discard pile become the stock",
    "pressure": lambda e, v: (f"{v.now(e.seat, 'meets')} an empty stock: shuffle pressure, "
                              f"+{e.value} points (time {e.aux})"),
    "went_out": lambda e, v: f"{v.did(e.seat, 'goes out')}",
    "hand_score": _hand_score,
    "hand_end": lambda e, v: f"hand {e.value} ends: {HAND_END_REASONS.get(e.detail, e.detail)}",
    "game_end": lambda e, v: f"the game ends after {plural(e.value, 'hand')}",
    "final": lambda e, v: f"{v.now(e.seat, 'finishes')} with {e.value} points, place {e.aux}",
}
"""Event kind -> its phrase; a kind that is not here is not worth a line."""
