"""The commented ``contest.toml`` that ``craits contest init`` writes.

The file is the organiser's documentation as much as a configuration: every key is present
with its default and a line saying what it does, so a contest is set up by editing values, not
by reading the docs for key names. ``tests/contest/test_config.py`` checks that this text
parses to exactly ``ContestConfig``'s defaults (with the name given), so the two cannot drift.
"""

from __future__ import annotations

import json

TEMPLATE = """\
# A Craits contest, served by `craits contest serve DIR` (docs/contests.md).
# Every key is shown with its default; delete a key to keep its default.

# The contest's name, shown on the board.
name = {name}

# How contestants join: "organiser" (you run `craits contest add NAME --dir DIR`, which prints
# the contestant's token once) or "open" (anyone registers a name with POST /api/v1/register
# and receives a token; at most max_contestants in all).
join = "organiser"
max_contestants = 1000

[tables]
# Seats at a table. The matchmaker plays tables of every size from min_seats to max_seats
# (2 to 10); validation plays a new version at the smallest and the largest.
min_seats = 2
max_seats = 4

[rules]
# The rules preset (standard, gamerules or spanish); any rules field may follow to change it,
# e.g. face_cards = true (`craits rules show` lists the fields).
preset = "standard"

[time]
# Per-move limit and per-game time bank, in milliseconds.
move_ms = 1000
bank_ms = 10000

[limits]
# What each bot may use in its sandbox (docs/security.md): memory (MB), processes, open
# files, largest file written (MB), CPU seconds, CPU share (% of one core), private /tmp (MB),
# stderr kept (MB).
memory_mb = 2048
processes = 64
open_files = 256
file_size_mb = 64
cpu_s = 36000
cpu_percent = 100
tmp_mb = 64
stderr_mb = 8

[versions]
# How many of each contestant's latest versions play (the others stop when a newer one
# passes validation).
playing = 2
# How many of each contestant's versions keep their files on disk (0: all). Older ones that
# neither play nor are being validated nor are in the finals have their files pruned; their
# rows, games and ratings stay. At least `playing` when not 0.
keep = 0

[ladder]
# A version is suspended (it stops playing; its owner sees why) once more than fault_percent %
# of fault_window games, among its last fault_window, had a fault of its own (a timeout, an
# illegal or unreadable answer, a crash, a forfeit).
fault_percent = 10
fault_window = 50
# Deal sets a version plays before its place on the board stops being provisional.
provisional = 10
# Seconds between two refits of the board at most: tables that end in between are folded into
# the next refit; a version starting or stopping to play, or the finals starting, refit at once.
refit_s = 5.0
# How far below the service's the table worker processes' CPU priority is (0 to 19), and that of
# validation's games: games are batch work, the pages interactive; it weighs only when both want
# a core.
worker_nice = 10
# How the matchmaker spends the tables (docs/contests.md, Matchmaking). top_weight: how much
# more a pair of versions that may decide the top 3 places counts (the exact top sooner for
# more, the whole order sooner for less). top_after_tau: the top counts more only once the
# matchmaker expects its whole order to be this right (Kendall tau, 0 to 0.99; 0: from the
# first table). rate_least and rate_most: the least and most of its fair share of an hour's
# games any version is given (narrower: even rates; wider: the games go where the order is in
# doubt). Measured on 16 simulated versions, against random tables: these defaults find the
# whole order (Kendall tau 0.9) with 0.65 of the games and the exact top 3 with 0.37 when the
# versions are 40 Elo apart, 0.75 and 0.48 in a realistic field (1,000 runs each).
top_weight = 6.0
top_after_tau = 0.9
rate_least = 0.5
rate_most = 2.0

[uploads]
# Uploads per contestant: at most per_window in any window_minutes (refused beyond that with
# HTTP 429 and the time to wait).
per_window = 10
window_minutes = 60
# The upload itself (an archive or a single source file), in kilobytes.
max_upload_kb = 10240
# What an archive may unpack to: files, size of one file and of all of them (kilobytes), and
# unpacked size over packed size (a zip bomb is refused by this ratio or by the total).
max_files = 2000
max_file_kb = 51200
max_total_kb = 204800
max_ratio = 200

[phases]
# When the phases start, as TOML dates with a time zone (e.g. 2030-05-01T12:00:00Z); absent:
# uploads are accepted from the start (open) and the contest is never frozen.
# Before `open` nothing is accepted; from `freeze` no uploads; from `finals` the finals run.
# open = 2030-05-01T12:00:00Z
# freeze = 2030-06-01T12:00:00Z
# finals = 2030-06-02T12:00:00Z
# The finals: the top `finalists` of the board when they start (at `finals`, or when the
# organiser runs `craits contest phase DIR finals`) play among themselves, ratings counted from
# the finals' games alone, until each has played `finals_deal_sets` deal sets; then the contest
# is done and `craits contest export DIR --out OUT` writes the results.
finalists = 8
finals_deal_sets = 30

[web]
# Seconds spectators' live pages and streams lag behind the games being played: a move, and a
# game's end, is shown once it is this old (0: at once). The organiser's view is never delayed.
live_delay_s = 0
"""


def contest_toml(name: str) -> str:
    """The file for a contest called ``name`` (quoted as a TOML basic string: a JSON string is
    one, for every character JSON escapes)."""
    return TEMPLATE.format(name=json.dumps(name, ensure_ascii=False))
