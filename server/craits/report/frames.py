"""The states the HTML viewer steps through, computed here so the page's script stays a viewer.

One frame per decision holds the table right after it (every seat's hand as card text, top
card, active suit, count, pending jacks, king sequence, direction, forfeited turns, totals) and
what happened in words. A decision that ends a hand gets a frame of its own for the hand's end,
with the cards left and the scores, before the frame of the next deal. Frames are written as
patches (only what changed since the previous frame; ``log`` and ``mv`` belong to one frame
only) so a game of a thousand decisions stays small; the script rebuilds the full states once
on load.
"""

from __future__ import annotations

from collections.abc import Sequence
from typing import Any, Final

from craits.engine import Event, Game, format_cards
from craits.engine.cards import SUIT_LETTERS
from craits.words import Voice, describe_all

from .steps import Step, walk
from .stored import StoredGame
from .terminal import fault_line

OWN_FRAME: Final = ("log", "mv")
"""Frame fields that are not carried into the next frame."""
SUMMARY_ONLY: Final = ("h", "hs")
"""State fields not written as plain patch fields: hands go by seat, hand scores go to the
per-hand summary."""

State = dict[str, Any]


def game_frames(game: StoredGame) -> dict[str, Any]:
    """Everything the viewer needs: seat names, per-hand summary and the frame patches."""
    states: list[State] = []
    for step, live in walk(game):
        _add_step(states, step, live, game.seats)
    return {"seats": list(game.seats), "hands": hand_summary(states),
            "frames": patches(states)}


def hand_summary(states: Sequence[State]) -> list[dict[str, Any]]:
    """Per hand: its first and end frames, hand scores, running totals, who went out."""
    hands: dict[int, dict[str, Any]] = {}
    for i, s in enumerate(states):
        if s["k"] in ("deal", "end"):
            hands.setdefault(s["hn"], {"n": s["hn"], "first": i})
        if s["k"] == "end":
            out = [seat for seat, cards in enumerate(s["h"]) if not cards]
            hands[s["hn"]].update(end=i, scores=s["hs"], totals=s["tot"], out=out)
    return [hands[n] for n in sorted(hands)]


def patches(states: Sequence[State]) -> list[State]:
    """Each state as the fields that changed since the one before (hands by seat)."""
    out: list[State] = []
    prev: State = {"h": []}
    for state in states:
        patch = {k: v for k, v in state.items()
                 if k not in SUMMARY_ONLY and (k in OWN_FRAME or prev.get(k) != v)}
        hands = {str(seat): cards for seat, cards in enumerate(state["h"])
                 if seat >= len(prev["h"]) or prev["h"][seat] != cards}
        if hands:
            patch["h"] = hands
        out.append(patch)
        prev = state
    return out


def _add_step(states: list[State], step: Step, live: Game, names: Sequence[str]) -> None:
    """One frame per hand that ended inside the step, then the state after the step."""
    segments = _split_after_hand_end(step.events)
    faults = [fault_line(f, names).strip() for f in step.faults]
    move = _move(step)
    for i, segment in enumerate(segments):
        log = [*faults, *_words(segment, names)] if i == 0 else _words(segment, names)
        if i < len(segments) - 1:
            state = _hand_end(states[-1], segment, step.number)
        else:
            state = _snapshot(live, step.number, segment)
        state["log"] = log
        if i == 0 and move:
            state["mv"] = move
        states.append(state)


def _split_after_hand_end(events: Sequence[Event]) -> list[list[Event]]:
    segments: list[list[Event]] = [[]]
    for e in events:
        segments[-1].append(e)
        if e.kind == "hand_end":
            segments.append([])
    return segments


def _words(events: Sequence[Event], names: Sequence[str]) -> list[str]:
    return describe_all(events, Voice(names))


def _move(step: Step) -> dict[str, Any] | None:
    d = step.decision
    if d is None:
        return None
    ms = None if d.elapsed_ms is None else round(d.elapsed_ms, 1)
    return {"s": d.seat, "m": str(d.move), "ms": ms, "d": d.defaulted}


def _snapshot(live: Game, number: int, segment: Sequence[Event]) -> State:
    """The live game as a state: exact, read from the engine."""
    kind = ("over" if live.is_over else
            "deal" if any(e.kind == "hand_start" for e in segment) else "move")
    return {
        "k": kind, "n": number, "hn": live.hand_number,
        "h": [format_cards(sorted(hand)) for hand in live.hands],
        "top": str(live.discard[-1]) if live.discard else "",
        "su": SUIT_LETTERS[live.active_suit], "cnt": live.count, "jk": live.jack_penalty,
        "kg": live.king_left, "dir": live.direction,
        "act": -1 if live.is_over else live.to_act, "ph": live.phase.name.lower(),
        "dl": live.dealer, "tot": list(live.totals), "ff": list(live.forfeits),
        "pr": list(live.pressure_counts), "stk": len(live.stock), "dsc": len(live.discard),
    }


def _hand_end(prev: State, segment: Sequence[Event], number: int) -> State:
    """The table when a hand ends inside a step: the previous state moved on by its events.

    The engine has already dealt the next hand by the time the step is over, so the end of a
    hand is folded from its events: the cards left and totals come from the score events.
    """
    state: State = {**prev, "k": "end", "n": number, "act": -1, "ph": "hand over", "cnt": 0,
                    "jk": 0, "kg": 0, "h": list(prev["h"]), "tot": list(prev["tot"]),
                    "hs": [0] * len(prev["tot"])}
    for e in segment:
        if e.kind in ("play", "upturn"):
            named = e.kind == "play" and e.aux >= 0
            state["top"] = str(e.cards[0])
            state["su"] = SUIT_LETTERS[e.aux if named else e.cards[0].suit]
        elif e.kind == "choose_suit":
            state["su"] = SUIT_LETTERS[e.aux]
        elif e.kind == "reverse":
            state["dir"] = e.value
        elif e.kind == "hand_score":
            state["h"][e.seat] = format_cards(sorted(e.cards))
            state["tot"][e.seat] = e.aux
            state["hs"][e.seat] = e.value
        elif e.kind == "hand_end":
            state["hn"] = e.value
    return state
