"""Secret, reproducible deals: every engine seed and game id of a run comes from one key.

The engine is public and deterministic, so whoever knows a game's engine seed knows every card of
it: the opponents' hands and the whole stock order. A seed must therefore never be guessable from
anything a bot sees. A ``DealKey`` holds 256 secret bits drawn once per tournament (or server
run); each seed is a keyed hash (HMAC-SHA-256) of public labels such as the meeting and the deal
set, so the labels may be known to everyone while the seeds stay unpredictable without the key.
The key is stored with the tournament, so a resume, a replay and every seating of a duplicate
deal set get exactly the same cards, and game ids are derived the same way, so they name a game
without revealing anything about its deal.

A key made ``from_seed`` is for testing and demonstrations: anyone who knows the seed can rebuild
every deal, so such a run is reproducible but not safe against adversarial bots (``testing``).
"""

from __future__ import annotations

import hashlib
import hmac
import json
import secrets
from dataclasses import dataclass, field
from typing import Final

KEY_BYTES: Final = 32
"""256 bits: far beyond any offline search, and the size of the HMAC-SHA-256 block input."""

GAME_ID_HEX: Final = 16
"""Hex digits of a game id (64 bits): unique within any run, and revealing nothing."""


@dataclass(frozen=True, slots=True)
class DealKey:
    """The secret behind a run's deals; ``repr`` never shows it."""

    secret: bytes = field(repr=False)
    testing: bool = False
    """Derived from a public seed: reproducible by anyone who knows the seed."""

    def __post_init__(self) -> None:
        if len(self.secret) != KEY_BYTES:
            raise ValueError(f"a deal key is {KEY_BYTES} bytes, got {len(self.secret)}")

    @staticmethod
    def fresh() -> DealKey:
        """A new key from the operating system's CSPRNG (``secrets``)."""
        return DealKey(secrets.token_bytes(KEY_BYTES))

    @staticmethod
    def from_seed(seed: int) -> DealKey:
        """A key anyone can rebuild from ``seed``: for tests and demonstrations only."""
        return DealKey(hashlib.sha256(f"craits-deal-key:v1:{seed}".encode()).digest(), True)

    @staticmethod
    def from_hex(text: str, testing: bool = False) -> DealKey:
        """Inverse of ``hex`` (how the store keeps a key)."""
        return DealKey(bytes.fromhex(text), testing)

    @property
    def hex(self) -> str:
        """The key as text, for the store; never for a bot's eyes."""
        return self.secret.hex()

    def seed(self, *labels: object) -> int:
        """The engine seed named by ``labels``: 63 bits of HMAC-SHA-256 (non-negative)."""
        return int.from_bytes(self._mac("seed", labels)[:8], "big") >> 1

    def game_id(self, *labels: object) -> str:
        """An opaque game id for ``labels``: ``g-`` and 16 hex digits, unrelated to any seed."""
        return "g-" + self._mac("game-id", labels).hex()[:GAME_ID_HEX]

    def _mac(self, purpose: str, labels: tuple[object, ...]) -> bytes:
        # JSON keeps labels apart unambiguously: ("a,b", 1) and ("a", "b,1") differ.
        message = json.dumps([purpose, *labels], separators=(",", ":")).encode()
        return hmac.new(self.secret, message, hashlib.sha256).digest()


def run_key(seed: int | None) -> DealKey:
    """The key of a new run: from ``seed`` when the organiser gave one (testing), else fresh."""
    return DealKey.fresh() if seed is None else DealKey.from_seed(seed)
