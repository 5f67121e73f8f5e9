"""The durable store of tournaments: SQLite (WAL), one writer, readable forever.

    schema        the tables and their migrations
    dbfile        the file checked (whose it is, how it may be opened) before it is used
    game_records  what the store keeps of a game (moves, times, faults) and how the game is
                  rebuilt from it
    record_codec  the compact encoding of a game record (one compressed value)
    legacy        the one-row-per-event logs of stores before records, read and converted
    database      ``Store``: tournaments, jobs (claimed exactly once), games and their records
"""
