"""``--tls-cert`` and ``--tls-key``: serving bots over TLS, for the commands that open a referee."""

from __future__ import annotations

import argparse
from pathlib import Path
from typing import Any

from craits.referee.listener import TlsError, TlsFiles

from .common import UsageError


def add_tls_options(parser: Any) -> None:
    """Add the two options (both or neither)."""
    parser.add_argument("--tls-cert", type=Path, metavar="PEM",
                        help="serve bots over TLS with this certificate (chain), PEM; bots then "
                        "dial with CRAITS_TLS_CA naming a CA that signed it (or with a "
                        "https:// CRAITS_SERVER when a public CA did)")
    parser.add_argument("--tls-key", type=Path, metavar="PEM",
                        help="the certificate's private key, PEM (keep it owner-only)")


def tls_from_args(args: argparse.Namespace) -> TlsFiles | None:
    """The files, checked now (``UsageError`` saying what is wrong), or None for plain text."""
    cert, key = getattr(args, "tls_cert", None), getattr(args, "tls_key", None)
    if cert is None and key is None:
        return None
    if cert is None or key is None:
        raise UsageError("give both --tls-cert and --tls-key, or neither")
    files = TlsFiles(cert, key)
    try:
        files.check()
    except TlsError as exc:
        raise UsageError(f"bad --tls-cert/--tls-key: {exc}") from None
    return files
