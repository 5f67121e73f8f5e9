"""Reading a parsed TOML table key by key, so every bad value is reported by its key's path.

``tomllib`` checks syntax only; a configuration also needs types, ranges and a refusal of keys
nobody reads (a misspelt key silently ignored would quietly change a tournament). ``TableReader``
gives typed getters that say what was expected, and ``finish`` rejects whatever no getter asked
for. Every mistake is a ``ConfigError`` that starts with the key's full path (``time.move_ms``,
``bots[2].comand``). Nothing here knows what a tournament is: ``config`` says which keys exist.
"""

from __future__ import annotations

import shlex
import tomllib
from collections.abc import Callable, Mapping, Sequence
from typing import Any, NoReturn, TypeVar

from craits.suggest import did_you_mean

T = TypeVar("T")


class ConfigError(ValueError):
    """The configuration is malformed; the message starts with the path of the offending key
    (after the file's path, from ``load_config``)."""


def parse_toml(text: str, source: str) -> dict[str, Any]:
    """The parsed TOML; a syntax error names ``source`` and the line."""
    try:
        return tomllib.loads(text)
    except tomllib.TOMLDecodeError as exc:
        raise ConfigError(f"{source}: not valid TOML: {exc}") from None


class TableReader:
    """One TOML table being read: typed getters that name the key path, then ``finish``."""

    def __init__(self, data: Any, path: str) -> None:
        if not isinstance(data, Mapping):
            raise ConfigError(f"{path or 'configuration'}: must be a table")
        self.data: Mapping[str, Any] = data
        self.path = path
        self.used: set[str] = set()

    def read_all(self) -> list[str]:
        """Every key present (marking them read)."""
        self.used.update(self.data)
        return list(self.data)

    def mark(self, key: str) -> None:
        """Record ``key`` as known even though it was not read."""
        self.used.add(key)

    def given(self, key: str) -> bool:
        """Whether ``key`` is present; an absent one is marked known, so that a reader of an
        optional key (or table) says "not given" in one step."""
        if key in self.data:
            return True
        self.mark(key)
        return False

    def where(self, key: str) -> str:
        """The full path of ``key`` in this table."""
        return f"{self.path}.{key}" if self.path else key

    def fail(self, key: str, message: str) -> NoReturn:
        """Raise a ``ConfigError`` about ``key``."""
        raise ConfigError(f"{self.where(key)}: {message}")

    def finish(self) -> None:
        """Reject the first key that no getter asked for, with the asked-for key it most
        resembles (by then every getter has run, so ``used`` holds every known key)."""
        for key in self.data:
            if key not in self.used:
                self.fail(key, f"unknown key{did_you_mean(key, self.used)}")

    def _get(self, key: str, default: T, check: Callable[[Any], bool], want: str,
             required: bool = False) -> T:
        self.used.add(key)
        if key not in self.data:
            if required:
                self.fail(key, f"missing; it must be {want}")
            return default
        value = self.data[key]
        if not check(value):
            self.fail(key, f"must be {want}, got {value!r}")
        result: T = value
        return result

    def integer(self, key: str, default: int, low: int, high: int) -> int:
        """An integer in ``[low, high]`` (a boolean is not an integer here)."""
        return self._get(key, default,
                         lambda v: type(v) is int and low <= v <= high,
                         f"a whole number from {low} to {high}")

    def real(self, key: str, default: float, low: float, high: float) -> float:
        """A number (integer or float) in ``[low, high]``."""
        value = self._get(key, default,
                          lambda v: type(v) in (int, float) and low <= v <= high,
                          f"a number from {low} to {high}")
        return float(value)

    def boolean(self, key: str, default: bool) -> bool:
        """``true`` or ``false``."""
        return self._get(key, default, lambda v: type(v) is bool, "true or false")

    def text(self, key: str, default: str, nonempty: bool = False, required: bool = False) -> str:
        """A string (non-empty when asked)."""
        want = "a non-empty string" if nonempty else "a string"
        return self._get(key, default, lambda v: isinstance(v, str) and bool(v or not nonempty),
                         want, required)

    def choice(self, key: str, default: str, options: Sequence[str]) -> str:
        """One of ``options``."""
        want = "one of " + ", ".join(f'"{o}"' for o in options)
        return self._get(key, default, lambda v: v in options, want)

    def command(self, key: str) -> str:
        """A command line: a string, or an array of words (joined with shell quoting)."""
        value: Any = self._get(key, "", lambda v: isinstance(v, (str, list)),
                               "a string or an array of strings")
        if isinstance(value, list):
            if not all(isinstance(word, str) for word in value):
                self.fail(key, f"must be a string or an array of strings, got {value!r}")
            value = shlex.join(value)
        if key in self.data and not value.strip():
            self.fail(key, "must name a program")
        return str(value)

    def table(self, key: str) -> TableReader:
        """A sub-table (an empty one when absent)."""
        self.used.add(key)
        return TableReader(self.data.get(key, {}), self.where(key))

    def array_of_tables(self, key: str) -> list[TableReader]:
        """An array of tables, like ``[[bots]]``."""
        self.used.add(key)
        value = self.data.get(key, [])
        if not isinstance(value, list):
            self.fail(key, f"must be an array of tables ([[{self.where(key)}]] entries)")
        return [TableReader(item, f"{self.where(key)}[{i}]") for i, item in enumerate(value)]
