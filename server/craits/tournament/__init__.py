"""Tournaments: configuration, schedule, ratings and statistics, and the durable store.

Layering inside the package (each module imports only those before it)::

    config    the validated TOML configuration (what to play)
    schedule  the deterministic list of self-contained game jobs (how to play it)
    results   what one finished game contributes to the standings
    elo, bradley_terry, bootstrap, sprt, stats   the statistics, pure functions
    standings everything a results table shows, pure over a list of results
    store     SQLite persistence: tournaments, jobs, games, event logs

Nothing here plays a game: the runner (next to the referee) claims jobs from the store, plays them
and records them; ``standings`` turns stored results into ratings.
"""
