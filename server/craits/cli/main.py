"""Entry point of the ``craits`` command: builds the parser from the command modules."""

from __future__ import annotations

import argparse
import contextlib
import importlib
import os
import signal
import sys
import threading
from collections.abc import Callable, Iterable, Iterator, Sequence
from typing import Any, Final

from craits import __version__

from .common import UsageError

COMMAND_MODULES = (
    "rules", "simulate", "match", "serve", "tournament", "check", "play", "pipe", "replay",
    "report", "contest",
)
"""Modules of ``craits.cli`` that each add one or more subcommands via ``register``."""


class _Parser(argparse.ArgumentParser):
    """A parser whose commands report the arguments they do not know themselves.

    argparse hands every word after a command's name to that command's parser, and by default
    lets the top-level parser report what was left over, with the top-level usage line
    (``craits [-h] COMMAND``), which says nothing about the command that was mistyped. A
    command here has no parent that could still use a leftover word, so its own parser
    reports it. Subcommand parsers are made of the parent's class, so this covers all of them.
    """

    def parse_known_args(  # Any: the base class's overloads return the namespace's own type
        self, args: Iterable[str] | None = None, namespace: Any = None
    ) -> tuple[Any, list[str]]:
        parsed, extra = super().parse_known_args(args, namespace)
        if extra and self._subparsers is None:
            self.error(f"unrecognized arguments: {' '.join(extra)}")
        return parsed, extra


def build_parser() -> argparse.ArgumentParser:
    """The full parser, with every command module's subcommands."""
    parser = _Parser(
        prog="craits",
        description="Craits Arena: rules engine, gRPC referee and tournaments for Craits bots.",
    )
    parser.add_argument("--version", action="version", version=f"craits {__version__}")
    sub = parser.add_subparsers(dest="command", metavar="COMMAND", required=True)
    for name in COMMAND_MODULES:
        importlib.import_module(f"craits.cli.{name}").register(sub)
    return parser


EXIT_INTERRUPTED: Final = 128 + signal.SIGINT
EXIT_STDOUT_CLOSED: Final = 128 + signal.SIGPIPE
"""What a shell shows for a program that SIGPIPE stopped, as ``yes | head -1`` does."""


def main(argv: Sequence[str] | None = None) -> int:
    """Run one command; returns the exit status (0 ok, 1 failure, 2 usage error, 130 after
    Ctrl-C or SIGTERM, 141 when the reader of stdout went away).

    Everything runs inside the handlers, building the parser too: it imports every command
    module, which takes long enough for an early Ctrl-C to land there. Stdout is flushed here so
    that a reader that left early (``| head``) is seen here, for every command alike, and not
    by the interpreter's last flush.
    """
    restore = _stop_on_sigterm()
    try:
        with _deferred_interrupts():
            parser = build_parser()
        if not (sys.argv[1:] if argv is None else argv):  # a bare `craits`: what can it do?
            parser.print_help()
            return 0
        args = parser.parse_args(argv)
        status: int = args.func(args)
        sys.stdout.flush()
    except UsageError as exc:
        print(f"craits: error: {exc}", file=sys.stderr)
        return 2
    except KeyboardInterrupt:  # on a terminal, after the ^C it echoed: start a fresh line
        fresh = "\n" if sys.stderr.isatty() else ""
        print(f"{fresh}craits: interrupted", file=sys.stderr)
        return EXIT_INTERRUPTED
    except BrokenPipeError:
        return _stdout_closed()
    finally:
        restore()
    return status


@contextlib.contextmanager
def _deferred_interrupts() -> Iterator[None]:
    """Hold Ctrl-C and SIGTERM back while the command modules import, and deliver them after.

    An interrupt that lands inside an import (grpc's and protobuf's take long on a busy
    machine) can leave a module half made, and the next import then fails with an error about
    that instead of a clean ``interrupted``. Held back, it arrives a moment later, at the
    first line after the imports, where it is handled like any other Ctrl-C.
    """
    if threading.current_thread() is not threading.main_thread():
        yield
        return
    held = {signal.SIGINT, signal.SIGTERM}
    before = signal.pthread_sigmask(signal.SIG_BLOCK, held)
    try:
        yield
    finally:
        signal.pthread_sigmask(signal.SIG_SETMASK, before)


def _stop_on_sigterm() -> Callable[[], object]:
    """Make ``kill`` (SIGTERM, what service managers and ``timeout`` send) stop a command the
    way Ctrl-C does: a tournament is paused and its bots stopped, not left 'running' with its
    bot processes orphaned. Returns what puts the previous handlers back (nothing to do off the
    main thread, where handlers cannot be set).

    SIGTERM is relayed as SIGINT, so that it arrives where Ctrl-C does (trio delivers it at a
    checkpoint). A shell without job control starts background commands with SIGINT ignored;
    SIGINT then gets Python's handler back, or the relay would do nothing.
    """
    if threading.current_thread() is not threading.main_thread():
        return lambda: None
    term = signal.signal(signal.SIGTERM, lambda *_: os.kill(os.getpid(), signal.SIGINT))
    interrupt = signal.getsignal(signal.SIGINT)
    if interrupt == signal.SIG_IGN:
        signal.signal(signal.SIGINT, signal.default_int_handler)

    def restore() -> None:
        signal.signal(signal.SIGTERM, signal.SIG_DFL if term is None else term)
        if interrupt == signal.SIG_IGN:
            signal.signal(signal.SIGINT, signal.SIG_IGN)

    return restore


def _stdout_closed() -> int:
    """The reader of stdout left: nothing to report, and nothing more to write.

    As Python's documentation advises (the signal module, "Note on SIGPIPE"), stdout is pointed
    at devnull so that the output still buffered cannot fail again when the interpreter exits.
    """
    with contextlib.suppress(OSError, ValueError):  # a stdout with no descriptor (tests)
        devnull = os.open(os.devnull, os.O_WRONLY)
        os.dup2(devnull, sys.stdout.fileno())
    return EXIT_STDOUT_CLOSED


if __name__ == "__main__":
    sys.exit(main())
