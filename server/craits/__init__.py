"""Craits Arena: a rules engine, gRPC referee and tournament runner for the card game Craits.

The subpackages are layered and import downwards only: ``engine`` (pure rules) <- ``protocol``
(protobuf conversion) <- ``referee`` <- ``tournament`` <- ``cli``.
"""

__version__ = "0.1.0"
