"""A certificate authority and a server certificate for 127.0.0.1 and localhost, made with the
``openssl`` command for a test (never a fixed key checked into the repository)."""

from __future__ import annotations

import subprocess
from dataclasses import dataclass
from pathlib import Path


@dataclass(frozen=True)
class Certs:
    ca: Path
    """The CA certificate bots trust (``CRAITS_TLS_CA``)."""
    cert: Path
    key: Path
    """The referee's certificate and key (``--tls-cert``, ``--tls-key``)."""


def _openssl(*args: str, cwd: Path) -> None:
    subprocess.run(["openssl", *args], cwd=cwd, check=True, capture_output=True, timeout=60)


def make_certs(where: Path) -> Certs:
    """A fresh CA in ``where`` and a certificate it signed for the loopback names."""
    where.mkdir(parents=True, exist_ok=True)
    _openssl("req", "-x509", "-newkey", "ec", "-pkeyopt", "ec_paramgen_curve:prime256v1",
             "-nodes", "-keyout", "ca.key", "-out", "ca.pem", "-days", "2",
             "-subj", "/CN=craits test CA", cwd=where)
    _openssl("req", "-newkey", "ec", "-pkeyopt", "ec_paramgen_curve:prime256v1", "-nodes",
             "-keyout", "server.key", "-out", "server.csr", "-subj", "/CN=localhost", cwd=where)
    (where / "san.ext").write_text("subjectAltName=IP:127.0.0.1,DNS:localhost\n")
    _openssl("x509", "-req", "-in", "server.csr", "-CA", "ca.pem", "-CAkey", "ca.key",
             "-CAcreateserial", "-out", "server.pem", "-days", "2", "-extfile", "san.ext",
             cwd=where)
    return Certs(where / "ca.pem", where / "server.pem", where / "server.key")


def make_self_signed(where: Path) -> Certs:
    """One self-signed certificate for the loopback names, as a newcomer's one ``openssl``
    command makes it: its own CA (``ca`` and ``cert`` are the same file)."""
    where.mkdir(parents=True, exist_ok=True)
    _openssl("req", "-x509", "-newkey", "ec", "-pkeyopt", "ec_paramgen_curve:prime256v1",
             "-nodes", "-keyout", "self.key", "-out", "self.pem", "-days", "2",
             "-subj", "/CN=localhost", "-addext", "subjectAltName=IP:127.0.0.1,DNS:localhost",
             cwd=where)
    return Certs(where / "self.pem", where / "self.pem", where / "self.key")
