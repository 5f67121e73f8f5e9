"""The ``craits`` command line: a thin layer that parses arguments and calls the library.

Each command group lives in its own module exposing ``register(subparsers)``; ``main`` wires them.
User mistakes raise ``UsageError`` (printed as one line, exit status 2), never a traceback.
"""
