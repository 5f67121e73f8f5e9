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

Nothing here plays a game: the runner claims jobs from the store, plays them with the referee and
records them; ``standings`` turns stored results into ratings. See ``docs/tournaments.md`` and
``docs/ratings.md``.
"""
