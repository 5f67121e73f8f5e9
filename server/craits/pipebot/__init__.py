"""Pipe bots: any program that reads JSON lines and writes move lines can play under a referee.

``run_pipe`` connects to the referee as an ordinary bot (``CRAITS_SERVER``/``CRAITS_TOKEN``)
and, for every game it is seated in, starts one child process that lives exactly as long as the
game. For each decision the child gets one JSON line (the engine's ``Observation.to_dict()`` plus
``type``, ``game_id``, ``decision_id``, ``rules``, ``move_ms``, ``bank_ms``) and answers one line:
a move's text form or a legal-move index. A refused answer is reported back as a ``rejected``
line and another answer is read. At the game's end the child's stdin is closed. The full format,
with examples, is docs/pipe-bots.md; ``lines`` is its code.

Modules: ``lines`` (the format), ``child`` (one child process), ``game`` (one game's task),
``session`` (routing referee messages to games), ``run`` (the whole process: children's stderr,
SIGTERM). The gRPC stream and its reconnects are the SDK's loop (``craits_sdk.client``).
``craits pipe -- COMMAND...`` (``craits.cli.pipe``) is the command-line face of ``run_pipe``.
"""

from .run import EXIT_TERMINATED, run_pipe

__all__ = ["EXIT_TERMINATED", "run_pipe"]
