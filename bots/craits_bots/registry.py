"""The bundled bots by name, and how to start one as its own process.

The referee imports only this module: names for ``--bot random`` style specs, and the command
that runs one through the SDK. In-process use loads the class with ``load``.
"""

from __future__ import annotations

import importlib
import sys
from typing import Final

from craits_sdk import Bot

BUNDLED: Final[dict[str, str]] = {
    "random": "craits_bots.random:RandomBot",
    "greedy": "craits_bots.greedy:GreedyBot",
    "lowcard": "craits_bots.lowcard:LowCardBot",
    "expert": "craits_bots.expert:ExpertBot",
    "ismcts": "craits_bots.ismcts:IsmctsBot",
}
"""Bundled bot name -> ``module:Class`` target."""


def target(name: str) -> str:
    """The ``module:Class`` of a bundled bot; ``KeyError`` naming the known bots otherwise."""
    try:
        return BUNDLED[name]
    except KeyError:
        raise KeyError(f"no bundled bot {name!r}; known: {', '.join(BUNDLED)}") from None


def launch_command(name: str) -> list[str]:
    """The argv that runs bundled bot ``name`` as a process (it reads CRAITS_SERVER/TOKEN)."""
    return [sys.executable, "-m", "craits_sdk", "run", target(name)]


def load(name: str) -> type[Bot]:
    """The class of bundled bot ``name``, for in-process seats."""
    module_name, _, class_name = target(name).partition(":")
    cls = getattr(importlib.import_module(module_name), class_name)
    if not (isinstance(cls, type) and issubclass(cls, Bot)):
        raise TypeError(f"{target(name)} is not a craits_sdk.Bot subclass")
    return cls
