"""Tournaments: what to play, what was played, and playing it. Three jobs, three packages, each
importing only the ones after it (the layer contract in ``pyproject.toml`` checks it):

    run/    claiming jobs and having them played (at local tables, in worker processes, on a
            Ray cluster) with a pool of bots, and recording each finished game: the store's one
            writer (``run.runner``)
    store/  the durable SQLite store: tournaments, jobs claimed exactly once, games and their
            compact records (``store.database.Store``)
    plan/   the validated configuration, the deterministic schedule of self-contained jobs, and
            what a match's sequential test reads of them

The statistics a tournament's standings show are pure functions in ``craits.ratings``; the bot
processes it plays with are started by ``craits.hosting``. See ``docs/tournaments.md`` and
``docs/ratings.md``.
"""
