"""A tournament's configuration: one frozen value loaded from TOML, or built from defaults.

Everything a tournament will do follows from this value (and its seed), so it is validated in
full before anything is scheduled: unknown keys and bad values raise ``ConfigError`` with the key's
path (``table_size``, ``time.move_ms``, ``bots[2].comand``), never a traceback from deep inside a
run. ``TournamentConfig.to_dict`` gives a TOML/JSON-ready mapping that loads back to an equal
value; the store keeps that form, so a resumed tournament uses exactly what it started with.
The format, key by key, is in ``docs/tournaments.md``.
"""

from __future__ import annotations

import dataclasses
import math
import re
from collections.abc import Collection, Mapping, Sequence
from dataclasses import dataclass, field, fields
from enum import StrEnum
from pathlib import Path
from typing import Any, Final

from craits.engine import Rules, RulesError
from craits.engine.state import MAX_PLAYERS, MIN_PLAYERS
from craits.hosting.sandbox import LIMIT_RANGES, SandboxLimits
from craits.referee import tokens
from craits.referee.policy import LIMITS, FailurePolicy, TimeControl
from craits.suggest import did_you_mean

from .tomlreader import ConfigError as ConfigError
from .tomlreader import TableReader, parse_toml

MODES: Final = ("round-robin", "gauntlet", "match")
"""``round-robin``: every table-size subset of the bots meets; ``gauntlet``: only the meetings of
one bot; ``match``: two bots, played deal set by deal set until an SPRT decides."""

TRUST: Final = ("adversarial", "trusted")
"""``adversarial``: command bots run sandboxed, and a bot never carries what it saw in one seating
of a deal set into another (``docs/security.md``); ``trusted``: every bot is the organiser's own."""

DEALS: Final = ("duplicate", "independent")
"""``duplicate``: every seating of a deal set gets the same cards; ``independent``: each game its
own (forced, under ``adversarial``, for meetings with a remote bot, which keeps its memory)."""

SEATINGS: Final = ("rotations", "all")
"""``rotations``: the k cyclic rotations of the seats; ``all``: every one of the k! seatings."""

MAX_GAMES: Final = 1_000_000
"""A schedule larger than this is almost surely a mistake (k! seatings at a big table)."""

BOT_NAME: Final = re.compile(r"[A-Za-z0-9][A-Za-z0-9_.+-]{0,63}")
"""Bot names appear in tables, CSV files and command lines: keep them plain."""

PYTHON_TARGET: Final = re.compile(r"[A-Za-z_][\w.]*:[A-Za-z_]\w*")
"""``module:Class`` of an in-process bot."""

class BotKind(StrEnum):
    """How a participant is reached: a ``StrEnum`` whose values are the words configurations and
    messages always used, so it compares, prints and serialises as they did."""

    BUNDLED = "bundled"
    """A bot shipped with Craits, started by name."""
    COMMAND = "command"
    """A command line that starts the bot, sandboxed under ``adversarial``."""
    PYTHON = "python"
    """An SDK ``Bot`` class played inside the tournament's processes."""
    REMOTE = "remote"
    """A bot that dials the referee itself, with its token."""

    def __repr__(self) -> str:
        """The string's own ``repr``, as when kinds were strings (a ``BotSpec``'s repr)."""
        return str.__repr__(self)


@dataclass(frozen=True, slots=True)
class BotSpec:
    """One participant and how to reach it (``kind``)."""

    name: str
    kind: str = BotKind.BUNDLED
    """Always a ``BotKind`` (a plain string given is turned into one, an unknown one refused);
    typed ``str`` so that ``BotSpec(name, BotKind.REMOTE)`` stays a valid call."""
    bundled: str = ""
    """For ``bundled``: which bundled bot plays (defaults to ``name``)."""
    command: str = ""
    """For ``command``: a shell command line that starts the bot (it dials the referee)."""
    python: str = ""
    """For ``python``: the ``module:Class`` of an SDK ``Bot`` played inside the tournament's
    own processes (the in-process lane: trusted code, no bot process, no gRPC)."""
    token: str = ""
    """For ``remote``: the ``tokens.digest`` of the token the bot presents when it connects
    ("" = the server issues one). A configuration file may give the token or its digest; only
    the digest is kept, so a stored configuration never holds the token itself."""
    directory: str = ""
    """For ``command``: the bot's own directory (relative to the tournament's), where it runs and
    all of its own files it may read in the sandbox ("" = the tournament's directory)."""
    limits: SandboxLimits = field(default_factory=SandboxLimits)
    """For ``command``: its sandbox's resource limits."""
    move_ms: int | None = None
    bank_ms: int | None = None
    """This bot's own time control, where it differs from the tournament's ``[time]``."""

    def __post_init__(self) -> None:
        object.__setattr__(self, "kind", BotKind(self.kind))

    def time_control(self, default: TimeControl) -> TimeControl:
        """The time control this bot plays under: its own numbers, the tournament's for the
        rest."""
        return TimeControl(default.move_ms if self.move_ms is None else self.move_ms,
                           default.bank_ms if self.bank_ms is None else self.bank_ms)

    def to_dict(self) -> dict[str, Any]:
        """The TOML form: only the keys that say what this bot is."""
        out: dict[str, Any] = {"name": self.name}
        if self.kind == BotKind.BUNDLED and self.bundled != self.name:
            out["bundled"] = self.bundled
        elif self.kind == BotKind.COMMAND:
            out["command"] = self.command
            if self.directory:
                out["dir"] = self.directory
            if self.limits != SandboxLimits():
                out["limits"] = section_dict(self.limits)
        elif self.kind == BotKind.PYTHON:
            out["python"] = self.python
        elif self.kind == BotKind.REMOTE:
            out["remote"] = True
            if self.token:
                out["token"] = self.token
        for key in ("move_ms", "bank_ms"):
            if getattr(self, key) is not None:
                out[key] = getattr(self, key)
        return out


@dataclass(frozen=True, slots=True)
class SprtSettings:
    """The stopping rule of ``mode = "match"``: H0 elo = elo0 against H1 elo = elo1."""

    elo0: float = 0.0
    elo1: float = 20.0
    alpha: float = 0.05
    beta: float = 0.05


@dataclass(frozen=True, slots=True)
class TournamentConfig:
    """Everything a tournament is; see ``docs/tournaments.md`` for each key."""

    bots: tuple[BotSpec, ...]
    name: str = "tournament"
    seed: int | None = None
    """None: every deal comes from a secret key drawn when the tournament is created (safe
    against adversarial bots); a number: deals anyone with the seed can rebuild (testing)."""
    trust: str = "adversarial"
    deals: str = "duplicate"
    mode: str = "round-robin"
    gauntlet: str = ""
    table_size: int = 3
    deal_sets: int = 2
    seatings: str = "rotations"
    concurrency: int = 4
    max_tables_per_bot: int = 4
    rules: Rules = field(default_factory=Rules)
    time: TimeControl = field(default_factory=TimeControl)
    failure: FailurePolicy = field(default_factory=FailurePolicy)
    sprt: SprtSettings | None = None
    """The stopping rule: always in a match (the defaults if the file has no ``[sprt]``), in a
    gauntlet when the file has ``[sprt]`` (the gauntlet bot against the field), else ``None``."""

    @property
    def bot_names(self) -> tuple[str, ...]:
        """The bots' names in configuration order (the order meetings are formed in)."""
        return tuple(b.name for b in self.bots)

    def bot(self, name: str) -> BotSpec:
        """The bot called ``name`` (a ``KeyError`` if none)."""
        for spec in self.bots:
            if spec.name == name:
                return spec
        raise KeyError(name)

    def isolated(self, name: str) -> bool:
        """Whether bot ``name`` runs sandboxed, one process per seating of a deal set: a
        command bot under ``trust = "adversarial"``."""
        return self.trust == "adversarial" and self.bot(name).kind == BotKind.COMMAND

    def reads_published(self, name: str) -> bool:
        """Whether bot ``name``'s program could read what is published while it plays (the
        pages of ``craits tournament run --web``): a remote bot (someone else's machine) or a
        command bot run unsandboxed (``trust = "trusted"``: the network is its own). A
        sandboxed command bot has no network; bundled bots are our own code, which only
        plays; an in-process bot is the organiser's own and could read the store itself."""
        kind = self.bot(name).kind
        return kind == BotKind.REMOTE or (kind == BotKind.COMMAND and not self.isolated(name))

    def independent(self, meeting: Sequence[str]) -> bool:
        """Whether the meeting's games each get their own deal: asked for, or forced because
        an adversarial remote bot sits in it (it would remember one seating in the next)."""
        if self.deals == "independent":
            return True
        return self.trust == "adversarial" and any(
            self.bot(n).kind == BotKind.REMOTE for n in meeting
        )

    def to_dict(self) -> dict[str, Any]:
        """A TOML/JSON-ready mapping that ``config_from_dict`` loads back to an equal value."""
        out: dict[str, Any] = {
            f.name: getattr(self, f.name) for f in fields(self) if f.name in _SCALAR_KEYS
        }
        if not self.gauntlet:
            del out["gauntlet"]
        if self.seed is None:
            del out["seed"]
        out["rules"] = self.rules.to_dict()
        out["time"] = section_dict(self.time)
        out["failure"] = section_dict(self.failure)
        if self.sprt is not None:
            out["sprt"] = section_dict(self.sprt)
        out["bots"] = [b.to_dict() for b in self.bots]
        return out


_DEFAULTS: Final = TournamentConfig(bots=())
"""The defaults of every key (``bots`` has none)."""
_SPRT: Final = SprtSettings()

_SCALAR_KEYS: Final = frozenset(
    {"name", "seed", "trust", "deals", "mode", "gauntlet", "table_size", "deal_sets",
     "seatings", "concurrency", "max_tables_per_bot"}
)


def section_dict(
    value: TimeControl | FailurePolicy | SprtSettings | SandboxLimits,
) -> dict[str, Any]:
    """A small section's fields as a TOML/JSON-ready table."""
    return {f.name: getattr(value, f.name) for f in fields(value)}


# --------------------------------------------------------------------------- entry points
def load_config(path: str | Path, bundled_names: Collection[str] | None = None) -> TournamentConfig:
    """Read and validate a TOML file (``bundled_names``, if given, are the bots one may name).

    Every ``ConfigError`` starts with the file's path, once, whatever is wrong: the file, its
    TOML or a key.
    """
    data = load_table(path)
    try:
        return config_from_dict(data, bundled_names)
    except ConfigError as exc:
        raise ConfigError(f"{path}: {exc}") from None


def load_table(path: str | Path) -> dict[str, Any]:
    """A TOML file's table, not yet validated (for a caller that changes it first, as the
    command line's flags do); a ``ConfigError`` naming the file if it cannot be read."""
    path = Path(path)
    try:
        text = path.read_text(encoding="utf-8")
    except OSError as exc:
        raise ConfigError(f"{path}: cannot read: {exc.strerror}") from None
    except UnicodeDecodeError as exc:
        raise ConfigError(f"{path}: not UTF-8 text ({exc.reason} at byte {exc.start}); save it "
                          "as UTF-8") from None
    return parse_toml(text, str(path))


def parse_config(
    text: str, source: str = "<config>", bundled_names: Collection[str] | None = None
) -> TournamentConfig:
    """Validate TOML text; a syntax error names ``source`` and the line."""
    return config_from_dict(parse_toml(text, source), bundled_names)


def default_config(
    bot_names: Sequence[str], bundled_names: Collection[str] | None = None
) -> TournamentConfig:
    """A tournament of bundled bots with every default: no file needed.

    The table size is 3, or the number of bots when there are fewer.
    """
    size = max(MIN_PLAYERS, min(_DEFAULTS.table_size, len(bot_names)))
    data = {"table_size": size, "bots": [{"name": n} for n in bot_names]}
    return config_from_dict(data, bundled_names)


def config_from_dict(
    data: Mapping[str, Any], bundled_names: Collection[str] | None = None
) -> TournamentConfig:
    """Validate a parsed mapping (TOML or the stored JSON form) into a ``TournamentConfig``."""
    top, d = TableReader(data, ""), _DEFAULTS
    bots = _read_bots(top, bundled_names)
    mode = top.choice("mode", d.mode, MODES)
    config = TournamentConfig(
        bots=bots,
        name=top.text("name", d.name, nonempty=True),
        seed=_read_seed(top),
        trust=top.choice("trust", d.trust, TRUST),
        deals=top.choice("deals", d.deals, DEALS),
        mode=mode,
        gauntlet=top.text("gauntlet", d.gauntlet),
        table_size=top.integer(
            "table_size", MIN_PLAYERS if mode == "match" else d.table_size, MIN_PLAYERS,
            MAX_PLAYERS,
        ),
        deal_sets=top.integer("deal_sets", d.deal_sets, 1, MAX_GAMES),
        seatings=top.choice("seatings", d.seatings, SEATINGS),
        concurrency=top.integer("concurrency", d.concurrency, 1, 10_000),
        max_tables_per_bot=top.integer("max_tables_per_bot", d.max_tables_per_bot, 1, 10_000),
        rules=_read_rules(top),
        time=read_time(top, _DEFAULTS.time),
        failure=_read_failure(top),
        sprt=_read_sprt(top),
    )
    top.finish()
    _check_consistency(config)
    if config.mode == "match" and config.sprt is None:
        config = dataclasses.replace(config, sprt=_SPRT)
    return config


# --------------------------------------------------------------------------- sections
def _read_seed(top: TableReader) -> int | None:
    if not top.given("seed"):
        return None
    return top.integer("seed", 0, -(2**63), 2**63 - 1)


def _read_bots(top: TableReader, bundled_names: Collection[str] | None) -> tuple[BotSpec, ...]:
    entries = top.array_of_tables("bots")
    if len(entries) < 2:
        raise ConfigError("bots: at least two bots are needed (add [[bots]] entries)")
    bots = tuple(_read_bot(entry, bundled_names) for entry in entries)
    seen: set[str] = set()
    for i, bot in enumerate(bots):
        if bot.name in seen:
            raise ConfigError(f"bots[{i}].name: duplicate bot name {bot.name!r}")
        seen.add(bot.name)
    try:
        tokens.check_unique((bot.name, bot.token) for bot in bots)
    except tokens.TokenError as exc:
        raise ConfigError(f"bots: {exc}") from None
    return bots


def bot_from_dict(data: Mapping[str, Any]) -> BotSpec:
    """Validate one bot's table (the inverse of ``BotSpec.to_dict``)."""
    return _read_bot(TableReader(data, "bot"), None)


def _read_bot(entry: TableReader, bundled_names: Collection[str] | None) -> BotSpec:
    name = entry.text("name", "", nonempty=True, required=True)
    if not BOT_NAME.fullmatch(name):
        entry.fail("name", f"{name!r} is not a plain name (letters, digits, _ . + -; at most 64)")
    bundled = entry.text("bundled", "")
    command = entry.command("command")
    python = entry.text("python", "")
    remote = entry.boolean("remote", False)
    token = entry.text("token", "")
    move_ms, bank_ms = _own_limit(entry, "move_ms"), _own_limit(entry, "bank_ms")
    directory = entry.text("dir", "")
    limits = _read_limits(entry) if entry.given("limits") else None
    entry.finish()
    given = [key for key, on in (("bundled", bundled), ("command", command), ("python", python),
                                 ("remote", remote)) if on]
    if len(given) > 1:
        both = " and ".join(given)
        entry.fail(given[1], f"a bot is one of bundled, command, python or remote, not {both}")
    if python and not PYTHON_TARGET.fullmatch(python):
        entry.fail("python", f"{python!r} is not module:Class (e.g. mybots.smart:SmartBot)")
    if token and not remote:
        entry.fail("token", "only a remote bot has a token")
    if token and not tokens.is_digest(token):
        try:
            tokens.check(token)
        except tokens.TokenError as exc:
            entry.fail("token", str(exc))
        token = tokens.digest(token)
    for key, on in (("dir", directory), ("limits", limits)):
        if on and not command:
            entry.fail(key, "only a command bot has a directory and sandbox limits")
    if command:
        return BotSpec(name, BotKind.COMMAND, command=command, directory=directory,
                       limits=limits or SandboxLimits(), move_ms=move_ms, bank_ms=bank_ms)
    if python:
        return BotSpec(name, BotKind.PYTHON, python=python, move_ms=move_ms, bank_ms=bank_ms)
    if remote:
        return BotSpec(name, BotKind.REMOTE, token=token, move_ms=move_ms, bank_ms=bank_ms)
    which = bundled or name
    if bundled_names is not None and which not in bundled_names:
        key = "bundled" if bundled else "name"
        known = ", ".join(sorted(bundled_names)) or "none"
        entry.fail(key, f"no bundled bot {which!r}{did_you_mean(which, bundled_names)} "
                   f"(bundled bots: {known}; "
                   "or give command = ..., python = ... or remote = true)")
    return BotSpec(name, BotKind.BUNDLED, bundled=which, move_ms=move_ms, bank_ms=bank_ms)


def _own_limit(entry: TableReader, key: str) -> int | None:
    """A bot's own ``move_ms`` or ``bank_ms`` (range-checked as ``[time]``'s), None if absent."""
    return entry.integer(key, 0, *LIMITS[key]) if key in entry.data else None


def _read_limits(entry: TableReader) -> SandboxLimits:
    table, d = entry.table("limits"), SandboxLimits()
    value = SandboxLimits(**{
        name: table.integer(name, getattr(d, name), low, high)
        for name, (low, high) in LIMIT_RANGES.items()
    })
    table.finish()
    return value


def _read_rules(top: TableReader) -> Rules:
    table = top.table("rules")
    known = {f.name for f in fields(Rules)}
    for key in table.read_all():
        if key not in known:
            table.fail(key, f"unknown key; rules fields are: {', '.join(sorted(known))}")
        try:
            Rules.from_dict({key: table.data[key]})
        except RulesError as exc:
            table.fail(key, str(exc))
    try:
        return Rules.from_dict(table.data)
    except RulesError as exc:
        raise ConfigError(f"rules: {exc}") from None


def read_time(top: TableReader, default: TimeControl) -> TimeControl:
    """The ``[time]`` table: a tournament's and a contest's time control, read one way (each
    with its own defaults)."""
    table = top.table("time")
    value = TimeControl(
        move_ms=table.integer("move_ms", default.move_ms, *LIMITS["move_ms"]),
        bank_ms=table.integer("bank_ms", default.bank_ms, *LIMITS["bank_ms"]),
    )
    table.finish()
    return value


def _read_failure(top: TableReader) -> FailurePolicy:
    table = top.table("failure")
    value = FailurePolicy(
        max_retries=table.integer("max_retries", _DEFAULTS.failure.max_retries,
                                  *LIMITS["max_retries"]),
        max_strikes=table.integer("max_strikes", _DEFAULTS.failure.max_strikes,
                                  *LIMITS["max_strikes"]),
        grace_ms=table.integer("grace_ms", _DEFAULTS.failure.grace_ms, *LIMITS["grace_ms"]),
    )
    table.finish()
    return value


def _read_sprt(top: TableReader) -> SprtSettings | None:
    if not top.given("sprt"):
        return None
    table = top.table("sprt")
    value = SprtSettings(
        elo0=table.real("elo0", _SPRT.elo0, -2000.0, 2000.0),
        elo1=table.real("elo1", _SPRT.elo1, -2000.0, 2000.0),
        alpha=table.real("alpha", _SPRT.alpha, 1e-9, 0.5),
        beta=table.real("beta", _SPRT.beta, 1e-9, 0.5),
    )
    table.finish()
    if value.elo1 <= value.elo0:
        raise ConfigError("sprt.elo1: must be greater than sprt.elo0")
    return value


def _check_consistency(c: TournamentConfig) -> None:
    """Rules that tie several keys together; each error names the key to change."""
    n = len(c.bots)
    if c.table_size > n:
        raise ConfigError(f"table_size: {c.table_size} seats need at least {c.table_size} bots, "
                          f"there are {n}")
    _check_mode(c)
    games = scheduled_games(c)
    if games > MAX_GAMES:
        raise ConfigError(f"deal_sets: the schedule would have {games} games (more than "
                          f"{MAX_GAMES}); lower deal_sets or table_size, or use seatings = "
                          '"rotations"')


def _check_mode(c: TournamentConfig) -> None:
    if c.mode == "gauntlet":
        if not c.gauntlet:
            raise ConfigError('gauntlet: mode = "gauntlet" needs gauntlet = "<bot name>"')
        if c.gauntlet not in c.bot_names:
            raise ConfigError(f"gauntlet: {c.gauntlet!r} is not one of the bots")
    elif c.gauntlet:
        raise ConfigError('gauntlet: only with mode = "gauntlet"')
    if c.mode == "match":
        if len(c.bots) != 2 or c.table_size != 2:
            raise ConfigError('mode: "match" is two bots at a table of 2 '
                              "(set table_size = 2 and give exactly two [[bots]])")
    elif c.sprt is not None and c.mode != "gauntlet":
        raise ConfigError('sprt: only with mode = "match" or "gauntlet" (the gauntlet bot '
                          "against the field)")


def scheduled_games(c: TournamentConfig) -> int:
    """How many games the schedule holds: meetings × seatings per meeting × deal sets."""
    n, k = len(c.bots), c.table_size
    meetings = math.comb(n - 1, k - 1) if c.mode == "gauntlet" else math.comb(n, k)
    seatings = math.factorial(k) if c.seatings == "all" else k
    return meetings * seatings * c.deal_sets


def fairness_notes(c: TournamentConfig) -> list[str]:
    """What the organiser should know about how fair the tournament is against adversarial
    bots (printed when it is created; empty when nothing needs saying)."""
    notes: list[str] = []
    if c.seed is not None:
        notes.append(f"seed = {c.seed}: anyone who knows the seed can rebuild every deal; fine "
                     "for testing, not for a contest (leave seed out for secret deals)")
    commands = [b.name for b in c.bots if b.kind == BotKind.COMMAND]
    if c.trust == "trusted" and commands:
        notes.append(f'trust = "trusted": {", ".join(commands)} run unsandboxed, one process '
                     "for every game: only for bots you trust")
    inprocess = [b.name for b in c.bots if b.kind == BotKind.PYTHON]
    if inprocess:
        notes.append(f"{', '.join(inprocess)} play in this process (python = ...): trusted code "
                     "that could read everything the organiser can; only for bots you trust")
    remotes = [b.name for b in c.bots if b.kind == BotKind.REMOTE]
    if c.trust == "adversarial" and c.deals == "duplicate" and remotes:
        notes.append(f"{', '.join(remotes)} play remotely and keep their memory between games: "
                     "their meetings get independent deals instead of duplicate ones")
    return notes
