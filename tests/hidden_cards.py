"""The hidden-card check of every live page and stream (the contest's, the tournament's and
``craits serve``'s): each form a hidden card could show in, and where any of them shows."""

from __future__ import annotations

import json
from collections.abc import Iterable, Sequence

from craits.engine import Event
from craits.words import Voice, describe_all


def hidden_forms(full: Sequence[Event], names: Sequence[str]) -> list[str]:
    """Every way a hidden card could show: each private event that has cards, as its JSON form
    (what a stream sends) and told in words, in either tense (what a page says)."""
    forms = []
    for e in full:
        if e.private and e.cards:
            forms.append(json.dumps(e.to_dict()))
            for past in (False, True):
                forms += describe_all([e], Voice(names, past=past))
    return forms


def leaks(bodies: Iterable[str], forms: Sequence[str]) -> list[str]:
    """The hidden forms found in any of ``bodies``."""
    return [f for body in bodies for f in forms if f in body]
