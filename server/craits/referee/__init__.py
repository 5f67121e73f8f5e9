"""The referee: runs Craits games between seats under time control and one failure policy.

Layout: ``policy`` (time control, strikes, forfeits: the one place that decides what happens to a
misbehaving seat), ``seats`` (the seat interface and the in-process seat), ``hub`` (remote bots:
tokens, sessions, routing of replies to waiting seats), ``bridge`` (grpc.aio, with trio as the guest
of its asyncio loop in one thread), ``game`` (the loop that plays one game and records it),
``launcher`` (bot processes), ``server`` (hub and bridge wired together), ``running`` (a referee
plus launched bots, for commands), ``match`` (one game between processes), ``positions`` and
``conformance`` (``craits check``), ``human`` and ``narrate`` (``craits play``).
"""
