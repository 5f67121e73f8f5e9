"""The contest service (docs/contests.md): contestants upload bots whenever they like, each
upload becomes a version that is checked and then plays, and a public board keeps up.

Modules, by what they hold: ``config`` (``contest.toml``) and ``template`` (the commented file
``craits contest init`` writes); ``tokens`` (contestants' secrets, stored hashed); ``versions``
(a version's states and the moves between them); ``schema`` and ``store`` (the contest's SQLite,
WAL); ``manifest`` and ``archive`` (what an upload holds, unpacked safely); ``uploads`` (an
upload from bytes on the wire to a whole version on disk and in the store); ``ratelimit``;
``openapi`` and ``api`` (the HTTP JSON API); ``service`` (``craits contest serve``); ``client``
(the HTTP side of ``submit``, ``status`` and ``standings``); ``matchmaking`` and its
``simulation``: which versions play the next table.
"""
