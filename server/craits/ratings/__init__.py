"""Ratings and statistics: pure functions over finished games, no I/O, no storage.

Everything here takes ``ScoredGame``-like values (``results.GameResult``: seats, totals,
places, deal set) and can be tested on synthetic results and recomputed from a store at any
time. Each statistic is written once:

    results        what one finished game contributes: its pairwise scores
    elo            the Elo scale (expected score, Elo of a score) and online multiplayer Elo
    studentt       Student's t distribution (quantiles, CDF) for small numbers of deal sets
    bradley_terry  final ratings by maximum likelihood
    intervals      confidence intervals from the spread between whole deal sets (the one
                   interval method of every command) and likelihood of superiority
    pair_wld       a pair's wins, losses and draws
    match_score    the score and Elo difference of an A-vs-B match
    sprt           the stopping rule of A-vs-B matches
    stats          mean points, places, crosstable
    standings      everything a results table shows
    bootstrap, plackett_luce
                   research models measured by ``benchmarks/`` (calibration, multiplayer)
See ``docs/ratings.md``.
"""
