"""Ratings and statistics: pure functions over finished games, no I/O, no storage.

Everything here takes ``results.ScoredGame`` values (what a finished game contributes:
seats, totals, places, deal set) and can be tested on synthetic results and recomputed from a
store at any time. Each statistic is written once:

    results        what one finished game contributes: its pairwise scores
    elo            the Elo scale (expected score, Elo of a score) and online multiplayer Elo
    studentt       Student's t distribution (quantiles, CDF) for small numbers of deal sets
    bradley_terry  final ratings by maximum likelihood
    intervals      the deal sets as independent units, confidence intervals from the spread
                   between them (the one interval method of every command) and likelihood
                   of superiority
    pair_wld       a pair's wins, losses and draws
    match_score    the score and Elo difference of an A-vs-B match
    sprt           the stopping rule of A-vs-B matches
    stats          mean points, places, crosstable
    standings      everything a results table shows

The models these were measured against (the deal-set bootstrap, Plackett–Luce) are research
code that nothing here uses: they live in ``benchmarks/`` beside the benchmarks that measure
them. See ``docs/ratings.md``.
"""
