"""The rules configuration: one frozen, validated value with named presets.

Every difference between the source texts (see ``docs/rules.md``) is a field here. A game record
and every bot's game-start message carry the whole value, so a game can be replayed and a bot
knows exactly what it plays. Loading rejects unknown keys and ill-typed values with an error that
names the key.
"""

from __future__ import annotations

import dataclasses
import json
from collections.abc import Mapping
from dataclasses import dataclass, fields
from typing import Any, Final

from craits.suggest import did_you_mean


class RulesError(ValueError):
    """A rules configuration is malformed: unknown key, wrong type, or value out of range."""


PRESET_NAMES: Final = ("standard", "gamerules", "spanish")
"""The presets' names, in ``PRESETS``' order (known before ``Rules``, which checks them)."""


@dataclass(frozen=True, slots=True)
class Rules:
    """Every rule that varies between sources, as one immutable value.

    The defaults are the ``standard`` preset.
    """

    preset: str = "standard"
    """The preset this configuration started from (informational; fields decide)."""
    nines_wild: bool = False
    """A nine may be played on anything, like an eight (source E, preset ``spanish``)."""
    going_out_points: int = -10
    """Score for the player who goes out (W/E: -10; G: 0)."""
    three_points: int = 3
    """Score of each three left in a hand, cancelling or not (W/E: 3; G: 0)."""
    three_cancels_eight: bool = False
    """A three may cancel an eight (G and a W variation); otherwise eights are never cancelled."""
    face_cards: bool = False
    """Face-card functions (E): J: next draws 2 (jacks chain), QS: next draws 5, K: 3 more cards."""
    short_game: bool = False
    """Play only the first 8 hands (8 cards down to 1)."""
    remove_kings_queens: bool = False
    """In 2- or 3-player games take the kings and queens out of the deck (44 cards)."""
    dealer_follows_direction: bool = False
    """If a hand ends counter-clockwise, the next dealer is to the right and deals to the right."""
    draw_when_able: bool = False
    """A player may draw instead of playing even when able to play (normal play, the count, jacks,
    a king's sequence)."""
    idiot_card: bool = False
    """A missed "one card" costs one penalty card and no forfeited turn (instead of 2 + forfeit)."""
    announce_on_one_card_deal: bool = False
    """In the 1-card hand every player must announce "one card" with their first decision."""
    count_out_continues: bool = False
    """If the player who went out during the count must draw at its end, the hand goes on."""
    max_turns_per_hand: int = 2000
    """Safety cap: a hand reaching this many decisions ends at once and is scored as it stands."""

    def __post_init__(self) -> None:
        for f in fields(self):
            value = getattr(self, f.name)
            expected = _FIELD_TYPES[f.name]
            if type(value) is not expected:
                raise RulesError(
                    f"rules field {f.name!r} must be {expected.__name__}, got {value!r}"
                )
        for name, (low, high) in _INT_RANGES.items():
            value = getattr(self, name)
            if not low <= value <= high:
                raise RulesError(f"rules field {name!r} must be {low} to {high}, got {value}")
        if self.preset not in PRESET_NAMES:  # a record saying so could never be loaded again
            raise RulesError(
                f"unknown preset {self.preset!r}: choose one of {', '.join(PRESET_NAMES)}"
            )

    def replace(self, **changes: Any) -> Rules:
        """A copy with some fields changed (validated like any other rules value)."""
        _reject_unknown(changes)
        return dataclasses.replace(self, **changes)

    def to_dict(self) -> dict[str, Any]:
        """Every field, in declaration order, JSON-ready."""
        return {f.name: getattr(self, f.name) for f in fields(self)}

    def to_json(self) -> str:
        """Compact, key-ordered JSON: the form stored in game records."""
        return json.dumps(self.to_dict(), separators=(",", ":"))

    @staticmethod
    def from_dict(data: Mapping[str, Any]) -> Rules:
        """Load a full or partial configuration; missing fields come from its ``preset``."""
        _reject_unknown(data)
        base = preset(str(data.get("preset", "standard")))
        return base.replace(**{k: v for k, v in data.items() if k != "preset"})

    @staticmethod
    def from_json(text: str) -> Rules:
        """Inverse of ``to_json``."""
        try:
            data = json.loads(text)
        except json.JSONDecodeError as exc:
            raise RulesError(f"rules JSON is malformed: {exc}") from exc
        if not isinstance(data, dict):
            raise RulesError("rules JSON must be an object")
        return Rules.from_dict(data)

    def hands_in_game(self) -> tuple[int, ...]:
        """Deal sizes for every hand of a game."""
        return DEAL_SIZES[:8] if self.short_game else DEAL_SIZES

    def with_setting(self, assignment: str) -> Rules:
        """Apply one ``field=value`` text setting (as given on a command line)."""
        key, sep, raw = assignment.partition("=")
        key = key.strip().replace("-", "_")
        if not sep:
            raise RulesError(f"setting {assignment!r} must look like field=value")
        _reject_unknown({key: None})
        if key == "preset":
            # Renaming the preset would not change a single rule, only mislabel the record.
            raise RulesError("the preset is chosen on its own (e.g. --preset spanish), not set")
        return self.replace(**{key: _parse_value(key, raw.strip())})


DEAL_SIZES: Final = (8, 7, 6, 5, 4, 3, 2, 1, 2, 3, 4, 5, 6, 7, 8)
"""Cards dealt to each player in each of the 15 hands."""

_INT_RANGES: Final[dict[str, tuple[int, int]]] = {
    "going_out_points": (-10_000, 10_000),
    "three_points": (-10_000, 10_000),
    "max_turns_per_hand": (10, 1_000_000),
}
"""Bounds of the whole-number fields. A cap below 10 would end hands before they start; the
points bounds fit the 32-bit fields of the rules on the wire, where an unchecked value used to
pass validation and then fail inside the referee, blamed on the bots. With them (and the bounded
shuffle pressure of ``state.PRESSURE_DOUBLINGS``) every score a game can reach stays within
2**53, inside the 64-bit score fields of the wire and the results database."""

_FIELD_TYPES: Final[dict[str, type]] = {
    f.name: f.type if isinstance(f.type, type) else {"bool": bool, "int": int, "str": str}[f.type]
    for f in fields(Rules)
}
"""Each field's type: a string under ``from __future__ import annotations``, the class itself
when the engine is compiled with mypyc."""

PRESETS: Final[dict[str, Rules]] = {
    "standard": Rules(),
    "gamerules": Rules(
        preset="gamerules", going_out_points=0, three_points=0, three_cancels_eight=True
    ),
    "spanish": Rules(preset="spanish", nines_wild=True),
}
"""The named presets (docs/rules.md); every variant field can be set on top of any of them."""


def preset(name: str) -> Rules:
    """The named preset, or a ``RulesError`` listing the known names."""
    try:
        return PRESETS[name]
    except KeyError:
        raise RulesError(f"unknown preset {name!r}{did_you_mean(name, PRESETS)}: choose one of "
                         f"{', '.join(PRESETS)}") from None


def rules_from_settings(preset_name: str, settings: list[str] | tuple[str, ...] = ()) -> Rules:
    """A preset with ``field=value`` settings applied in order (the CLI's ``--set``)."""
    rules = preset(preset_name)
    for s in settings:
        rules = rules.with_setting(s)
    return rules


def _reject_unknown(data: Mapping[str, Any]) -> None:
    unknown = sorted(set(data) - set(_FIELD_TYPES))
    if unknown:
        raise RulesError(
            f"unknown rules field(s) {', '.join(map(repr, unknown))}"
            f"{did_you_mean(unknown[0], _FIELD_TYPES)}; known fields: {', '.join(_FIELD_TYPES)}"
        )


def _parse_value(key: str, raw: str) -> Any:
    kind = _FIELD_TYPES[key]
    if kind is bool:
        lowered = raw.lower()
        if lowered in ("true", "yes", "on", "1"):
            return True
        if lowered in ("false", "no", "off", "0"):
            return False
        raise RulesError(f"rules field {key!r} takes true or false, got {raw!r}")
    if kind is int:
        try:
            return int(raw)
        except ValueError:
            raise RulesError(f"rules field {key!r} takes a whole number, got {raw!r}") from None
    return raw
