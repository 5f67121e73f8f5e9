"""``did you mean ...?``: the closest known word to a misspelt one, for error messages."""

from __future__ import annotations

import difflib
from collections.abc import Iterable


def did_you_mean(word: str, known: Iterable[str]) -> str:
    """``" (did you mean 'greedy'?)"`` when one known word is close to ``word``, else ``""``:
    ready to append to a message."""
    close = difflib.get_close_matches(word, list(known), n=1, cutoff=0.6)
    return f" (did you mean {close[0]!r}?)" if close else ""
