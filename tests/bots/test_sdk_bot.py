"""The Python SDK's bot (a bundled bot started as ``python -m craits_sdk run``) through the
compliance suite that every bot in every language runs."""

from __future__ import annotations

from craits_bots.registry import launch_command

from .compliance import BotCompliance


class TestSdkBot(BotCompliance):
    name = "sdk"

    def build(self) -> list[str]:
        return launch_command("greedy")
