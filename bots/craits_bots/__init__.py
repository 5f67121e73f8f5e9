"""Bots bundled with Craits Arena; ``craits_bots.registry`` names them for the referee.

Each module holds one ``craits_sdk.Bot`` subclass and runs it when executed
(``python -m craits_bots.greedy``).
"""
