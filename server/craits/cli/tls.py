"""``--tls-cert``, ``--tls-key`` and ``--tls-ca``: serving bots over TLS, for the commands that
open a referee (``--tls-ca`` only names the file bots are told to trust: a referee cannot tell
which CA signed its certificate unless the certificate is its own root)."""

from __future__ import annotations

import argparse
from pathlib import Path
from typing import Any

from craits.referee.listener import TlsError, TlsFiles

from .common import UsageError


def add_tls_options(parser: Any) -> None:
    """Add the options (the first two both or neither)."""
    parser.add_argument("--tls-cert", type=Path, metavar="PEM",
                        help="serve bots over TLS with this certificate (chain), PEM; bots then "
                        "dial with CRAITS_TLS_CA naming a CA that signed it (or with a "
                        "https:// CRAITS_SERVER when a public CA did)")
    parser.add_argument("--tls-key", type=Path, metavar="PEM",
                        help="the certificate's private key, PEM (keep it owner-only)")
    parser.add_argument("--tls-ca", type=Path, metavar="PEM",
                        help="the CA certificate bots are to trust, printed with each bot's "
                        "CRAITS_TLS_CA (default: --tls-cert itself when it holds its own root, "
                        "as a self-signed certificate does)")


def tls_from_args(args: argparse.Namespace) -> TlsFiles | None:
    """The files, checked now (``UsageError`` saying what is wrong), or None for plain text."""
    cert, key = getattr(args, "tls_cert", None), getattr(args, "tls_key", None)
    ca = getattr(args, "tls_ca", None)
    if cert is None and key is None:
        if ca is not None:
            raise UsageError("--tls-ca needs --tls-cert and --tls-key")
        return None
    if cert is None or key is None:
        raise UsageError("give both --tls-cert and --tls-key, or neither")
    files = TlsFiles(cert, key, ca)
    try:
        files.check()
    except TlsError as exc:
        raise UsageError(f"bad --tls-cert/--tls-key: {exc}") from None
    return files
