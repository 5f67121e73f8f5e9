"""What a rules configuration changes from its preset, as data and as ``field=value`` text.

The replay header, the report pages, ``craits simulate`` and ``craits rules show`` all name the
fields that differ from the preset; three copies of this had drifted apart, so they share
this one.
"""

from __future__ import annotations

import json
from typing import Any

from .rules import PRESETS, Rules


def changed_fields(rules: Rules) -> dict[str, Any]:
    """Fields whose value differs from the preset the rules name, in declaration order (a
    ``Rules`` only ever names a known preset: it refuses any other)."""
    base = PRESETS[rules.preset].to_dict()
    return {k: v for k, v in rules.to_dict().items() if k != "preset" and base[k] != v}


def format_value(value: Any) -> str:
    """A field value as it would be typed after ``--set field=`` (``true``, ``-10``)."""
    return json.dumps(value) if isinstance(value, bool) else str(value)


def rules_summary(rules: Rules) -> str:
    """The preset name, then every changed field: ``standard, face_cards=true``."""
    changed = (f"{k}={format_value(v)}" for k, v in changed_fields(rules).items())
    return ", ".join([rules.preset, *changed])
