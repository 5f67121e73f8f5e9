"""``craits serve`` as a real process for the listener's tests: started, its tokens read, its
result collected."""

from __future__ import annotations

import json
import re
import secrets
import subprocess
import sys
from dataclasses import dataclass
from typing import Any

TOKEN_LINE = re.compile(r"bot (\S+): CRAITS_SERVER=(?:tls://)?(\S+) CRAITS_TOKEN=(\S+)")
BOT_LINE = re.compile(r"bot (\S+): (CRAITS_.*)")


def fresh_token() -> str:
    return secrets.token_urlsafe(16)


@dataclass
class Served:
    """A running ``craits serve``: where it listens (``host:port``, without the ``tls://`` it
    prints over TLS) and what it printed before its tokens."""

    proc: subprocess.Popen[str]
    address: str
    tokens: dict[str, str]
    said: list[str]
    settings: dict[str, dict[str, str]]
    """Each bot's line as printed: the variables it is told to set, by name."""

    def result(self, timeout: float = 120) -> dict[str, Any]:
        """The ``--json`` result, once every game is played (asserting it ended well)."""
        out, err = self.proc.communicate(timeout=timeout)
        assert self.proc.returncode == 0, "\n".join(self.said) + err
        games: dict[str, Any] = json.loads(out)
        return games


def serve(names: list[str], *extra: str, file_limit: int | None = None) -> Served:
    """Start ``craits serve --json`` for bots ``names`` (one short game) and read its tokens.

    ``file_limit``: the referee's soft limit of open files, set by a shell before it starts the
    referee, not by a ``preexec_fn``: Python code run between fork and exec in this process,
    which holds gRPC's threads, once left the child with a broken gRPC poller (``epoll_wait``:
    bad file descriptor) and no referee."""
    bots = [arg for name in names for arg in ("--bot", f"{name}={fresh_token()}")]
    command = [sys.executable, "-m", "craits", "serve", "--port", "0", "--games", "1",
               "--set", "short_game=true", "--json", "--connect-timeout", "60", *bots, *extra]
    if file_limit is not None:
        command = ["sh", "-c", f'ulimit -Sn {file_limit} && exec "$@"', "sh", *command]
    proc = subprocess.Popen(command, stdout=subprocess.PIPE, stderr=subprocess.PIPE, text=True)
    assert proc.stderr is not None
    found: dict[str, tuple[str, str]] = {}
    settings: dict[str, dict[str, str]] = {}
    said: list[str] = []
    while len(found) < len(names):
        line = proc.stderr.readline()
        assert line, "craits serve exited before printing the tokens:\n" + "".join(said)
        said.append(line)
        if m := TOKEN_LINE.search(line):
            found[m[1]] = (m[2], m[3])
        if m := BOT_LINE.search(line):
            settings[m[1]] = dict(word.split("=", 1) for word in m[2].split())
    address = next(iter(found.values()))[0]
    tokens = {name: token for name, (_, token) in found.items()}
    return Served(proc, address, tokens, said, settings)
