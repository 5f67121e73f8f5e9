"""Planning a tournament: what to play, decided before anything runs.

    tomlreader  typed reading of a parsed TOML table, errors named by key path
    config      the validated configuration (bots, table size, rules, time, trust)
    schedule    the deterministic list of self-contained game jobs
"""
