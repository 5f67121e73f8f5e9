"""``contest.toml``: one contest's settings, read and checked key by key.

Every mistake is a ``ConfigError`` naming the key's path (``uploads.max_ratio: must be ...``),
as tournament files are read (``craits.tournament.plan.tomlreader``), and an unknown key is
refused with the nearest known one: a misspelt limit silently left at its default would change
the contest without anyone noticing. ``template.py`` holds the commented file with these
defaults.
"""

from __future__ import annotations

import datetime as dt
import itertools
from dataclasses import dataclass, field, fields
from pathlib import Path
from typing import Final, Literal

from craits.engine import Rules, RulesError
from craits.hosting.sandbox import LIMIT_RANGES, SandboxLimits
from craits.referee.policy import TimeControl
from craits.tournament.plan.config import read_time
from craits.tournament.plan.tomlreader import ConfigError, TableReader, parse_toml

from .matchmaking import MatchConfig

_MATCH: Final = MatchConfig()
"""The matchmaker's defaults, which the ``[ladder]`` knobs take as theirs."""

CONFIG_NAME: Final = "contest.toml"
"""The configuration's file name inside a contest directory."""

Join = Literal["organiser", "open"]
Phase = Literal["before", "open", "frozen", "finals", "done"]
MIN_SEATS, MAX_SEATS = 2, 10


@dataclass(frozen=True, slots=True)
class UploadLimits:
    """What one upload may be and unpack to, and how often a contestant may upload."""

    per_window: int = 10
    window_minutes: int = 60
    max_upload_kb: int = 10 * 1024
    max_files: int = 2000
    max_file_kb: int = 50 * 1024
    max_total_kb: int = 200 * 1024
    max_ratio: int = 200

    @property
    def window_s(self) -> float:
        """The rate limit's window in seconds."""
        return self.window_minutes * 60.0


_UPLOAD_RANGES: Final[dict[str, tuple[int, int]]] = {
    "per_window": (1, 1_000_000),
    "window_minutes": (1, 7 * 24 * 60),
    "max_upload_kb": (1, 1 << 22),
    "max_files": (1, 1_000_000),
    "max_file_kb": (1, 1 << 24),
    "max_total_kb": (1, 1 << 24),
    "max_ratio": (1, 1_000_000),
}


@dataclass(frozen=True, slots=True)
class LadderSettings:
    """How the ladder judges versions: suspension for faults, and when a rating is no longer
    provisional."""

    fault_percent: int = 10
    fault_window: int = 50
    """A version is suspended once more than ``fault_percent`` % of ``fault_window`` games, among
    its last ``fault_window``, had a fault of its own (counted from its first game: six faulty
    games of its first ten suspend it at the defaults, with no need to wait for fifty)."""
    provisional: int = 10
    """Deal sets a version has played before its place on the board is no longer provisional."""
    refit_s: float = 5.0
    """Seconds between two refits of the board at most (``refit``): the tables that end in
    between are folded into the next one; a change of the playing versions or of the phase
    refits at once. 5 s: the board lags a finished table by seconds, and a refit of 100,000
    games (a day at 4,000 an hour) takes about 0.22 s of CPU (``docs/benchmarks.md``), so
    refits take about 5% of one core however fast tables end (2.0 s at a million games; the
    refitter then waits as long as a refit took, half a core at most)."""
    worker_nice: int = 10
    """How far below the service's the table worker processes' CPU priority is (0 to 19;
    ``tableworker.run_below``), and validation's children's (``validation.Child.nice``): games
    are batch work, the pages interactive, so on a machine whose cores the games keep busy a
    page is served first and a game waits milliseconds. It weighs only when both want a core;
    alone, the games get every idle one."""
    top_weight: float = _MATCH.top_weight
    """How much more the matchmaker weighs a pair that may decide the top places
    (``MatchConfig.top_weight``, whose default this is): the exact top sooner for more, the
    whole order sooner for less; ``docs/contests.md`` has the measured trade."""
    top_after_tau: float = _MATCH.top_after_tau
    """The Kendall tau the matchmaker's estimate must expect of its whole order before the
    top weighs more (``MatchConfig.top_after_tau``, whose default this is; 0: from the first
    table)."""
    rate_band: tuple[float, float] = _MATCH.band
    """The least and most of its fair share of an hour's games a version is given
    (``MatchConfig.band``, whose default this is): narrower, even rates; wider, the games go
    where the order is in doubt (read from ``rate_least`` and ``rate_most``)."""

    @property
    def fault_limit(self) -> int:
        """The most faulty games a version may have among its last ``fault_window``."""
        return self.fault_percent * self.fault_window // 100


@dataclass(frozen=True, slots=True)
class Phases:
    """When each phase starts (None: never, or for ``open``: from the start)."""

    open: dt.datetime | None = None
    freeze: dt.datetime | None = None
    finals: dt.datetime | None = None
    finalists: int = 8
    """How many versions, the top of the board when the finals start, play the finals."""
    finals_deal_sets: int = 30
    """Deal sets each finalist plays in the finals before they are done (``phases.py``)."""

    def at(self, now: dt.datetime) -> Phase:
        """The phase at ``now`` (an aware datetime)."""
        if self.finals is not None and now >= self.finals:
            return "finals"
        if self.freeze is not None and now >= self.freeze:
            return "frozen"
        if self.open is not None and now < self.open:
            return "before"
        return "open"


@dataclass(frozen=True, slots=True)
class ContestConfig:
    """A whole ``contest.toml``."""

    name: str = "Craits contest"
    join: Join = "organiser"
    max_contestants: int = 1000
    min_seats: int = 2
    max_seats: int = 4
    rules: Rules = field(default_factory=Rules)
    time: TimeControl = field(default_factory=TimeControl)
    limits: SandboxLimits = field(default_factory=SandboxLimits)
    playing_versions: int = 2
    keep_versions: int = 0
    """Versions per contestant whose files are kept (0: all); older ones that neither play nor
    are being validated or in the finals are pruned (``prune.py``); their rows and games stay."""
    uploads: UploadLimits = field(default_factory=UploadLimits)
    ladder: LadderSettings = field(default_factory=LadderSettings)
    phases: Phases = field(default_factory=Phases)
    live_delay_s: float = 0.0
    """``[web] live_delay_s``: spectators see a live game's moves, and its end, only once they
    are this old (the organiser's view has no delay); 0: as they are played."""


_DEFAULTS: Final = ContestConfig()


def load_contest_config(directory: Path) -> ContestConfig:
    """The contest in ``directory``; a ``ConfigError`` starting with the file's path says what
    is wrong (including a directory with no ``contest.toml``, and how to make one)."""
    path = directory / CONFIG_NAME
    try:
        text = path.read_text(encoding="utf-8")
    except FileNotFoundError:
        raise ConfigError(f"{path}: no contest here; create one with `craits contest init "
                          f"{directory}`") from None
    except (OSError, UnicodeDecodeError) as exc:
        raise ConfigError(f"{path}: cannot read it: {exc}") from None
    try:
        return parse_contest_config(text, str(path))
    except ConfigError as exc:
        message = str(exc)
        raise ConfigError(message if message.startswith(str(path)) else f"{path}: {message}"
                          ) from None


def parse_contest_config(text: str, source: str = CONFIG_NAME) -> ContestConfig:
    """The configuration in ``text`` (``source`` names it in syntax errors)."""
    top = TableReader(parse_toml(text, source), "")
    name = top.text("name", _DEFAULTS.name, nonempty=True)
    if any(ord(c) < 32 or ord(c) == 127 for c in name):
        top.fail("name", "must be one line of printable text")
    join: Join = "open" if top.choice("join", "organiser", ("organiser", "open")) == "open" \
        else "organiser"
    max_contestants = top.integer("max_contestants", _DEFAULTS.max_contestants, 1, 1_000_000)
    tables = top.table("tables")
    min_seats = tables.integer("min_seats", _DEFAULTS.min_seats, MIN_SEATS, MAX_SEATS)
    max_seats = tables.integer("max_seats", _DEFAULTS.max_seats, MIN_SEATS, MAX_SEATS)
    if max_seats < min_seats:
        tables.fail("max_seats", f"must be at least min_seats ({min_seats}), got {max_seats}")
    tables.finish()
    playing, keep = _read_versions(top)
    config = ContestConfig(
        name=name, join=join, max_contestants=max_contestants, min_seats=min_seats,
        max_seats=max_seats, rules=_read_rules(top), time=read_time(top, _DEFAULTS.time),
        limits=_read_limits(top), playing_versions=playing, keep_versions=keep,
        uploads=_read_uploads(top), ladder=_read_ladder(top), phases=_read_phases(top),
        live_delay_s=_read_web(top),
    )
    top.finish()
    return config


def _read_rules(top: TableReader) -> Rules:
    table = top.table("rules")
    table.read_all()
    try:
        return Rules.from_dict(table.data)
    except RulesError as exc:
        raise ConfigError(f"rules: {exc}") from None


def _read_limits(top: TableReader) -> SandboxLimits:
    table = top.table("limits")
    value = SandboxLimits(**{
        name: table.integer(name, getattr(_DEFAULTS.limits, name), low, high)
        for name, (low, high) in LIMIT_RANGES.items()
    })
    table.finish()
    return value


def _read_versions(top: TableReader) -> tuple[int, int]:
    table = top.table("versions")
    value = table.integer("playing", _DEFAULTS.playing_versions, 1, 100)
    keep = table.integer("keep", _DEFAULTS.keep_versions, 0, 1_000_000)
    if 0 < keep < value:
        table.fail("keep", f"must be 0 (keep all) or at least versions.playing ({value}), "
                   f"got {keep}")
    table.finish()
    return value, keep


def _read_uploads(top: TableReader) -> UploadLimits:
    table = top.table("uploads")
    value = UploadLimits(**{
        f.name: table.integer(f.name, getattr(_DEFAULTS.uploads, f.name),
                              *_UPLOAD_RANGES[f.name])
        for f in fields(UploadLimits)
    })
    table.finish()
    return value


def _read_ladder(top: TableReader) -> LadderSettings:
    table = top.table("ladder")
    defaults = _DEFAULTS.ladder
    value = LadderSettings(
        fault_percent=table.integer("fault_percent", defaults.fault_percent, 0, 100),
        fault_window=table.integer("fault_window", defaults.fault_window, 1, 100_000),
        provisional=table.integer("provisional", defaults.provisional, 0, 100_000),
        refit_s=table.real("refit_s", defaults.refit_s, 0.0, 3600.0),
        worker_nice=table.integer("worker_nice", defaults.worker_nice, 0, 19),
        top_weight=table.real("top_weight", defaults.top_weight, 0.0, 100.0),
        top_after_tau=table.real("top_after_tau", defaults.top_after_tau, 0.0, 0.99),
        # The band must hold the fair share itself (MatchConfig refuses one that does not).
        rate_band=(table.real("rate_least", defaults.rate_band[0], 0.0, 0.95),
                   table.real("rate_most", defaults.rate_band[1], 1.05, 100.0)),
    )
    table.finish()
    return value


def _read_web(top: TableReader) -> float:
    table = top.table("web")
    delay = table.real("live_delay_s", _DEFAULTS.live_delay_s, 0.0, 86_400.0)
    table.finish()
    return delay


def _read_phases(top: TableReader) -> Phases:
    table = top.table("phases")
    dates: dict[str, dt.datetime | None] = {}
    for key in ("open", "freeze", "finals"):
        value = table._get(key, None, lambda v: v is None or isinstance(v, dt.datetime),
                           "a date and time with a time zone, e.g. 2030-05-01T12:00:00Z")
        if value is not None and value.tzinfo is None:
            table.fail(key, f"needs a time zone (add Z for UTC): {value.isoformat()}")
        dates[key] = value
    finalists = table.integer("finalists", _DEFAULTS.phases.finalists, 2, 1000)
    deal_sets = table.integer("finals_deal_sets", _DEFAULTS.phases.finals_deal_sets, 1,
                              1_000_000)
    table.finish()
    order = [(k, d) for k, d in dates.items() if d is not None]
    for (first, a), (second, b) in itertools.pairwise(order):
        if b < a:
            raise ConfigError(f"phases.{second}: must not come before phases.{first}")
    return Phases(**dates, finalists=finalists, finals_deal_sets=deal_sets)
