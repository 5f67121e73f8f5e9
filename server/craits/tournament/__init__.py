"""Tournaments: configuration, schedule, ratings and statistics, and the durable store.

Layering inside the package (each module imports only those above it)::

    tomlreader     typed reading of a parsed TOML table, errors named by key path
    config         the validated TOML configuration (what to play)
    schedule       the deterministic list of self-contained game jobs (how to play it)
    results        what one finished game contributes to the standings
    elo            online multiplayer Elo (live)
    bradley_terry  final ratings by maximum likelihood
    bootstrap      intervals and likelihood of superiority, resampling whole deal sets
    sprt           the stopping rule of A-vs-B matches
    stats          mean points, places, crosstable
    standings      everything a results table shows, pure over a list of results
    records        what the store keeps of a game (moves, times, faults: one compressed
                   value) and how the game is rebuilt from it
    legacy         the one-row-per-event logs of stores before records, read and converted
    schema, storefile, store
                   SQLite persistence: tournaments, jobs, games and their records; the file
                   checked (whose it is, how it may be opened) before it is used

Playing (above all of those): ``inprocess`` (an SDK ``Bot`` as a seat), ``botpool`` (every bot
of a run, by process slot), ``tables`` (claimed jobs played with a pool), ``worker`` and
``workers`` (worker processes, and the run process's view of them), ``runner`` (claims jobs,
has them played here or in workers, records them: the store's one writer). ``standings`` turns
stored results into ratings. See ``docs/tournaments.md`` and
``docs/ratings.md``.
"""
