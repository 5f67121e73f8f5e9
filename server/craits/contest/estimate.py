"""The matchmaker's estimate of the field: each playing version's strength and how sure of it.

It is the published board's model, the Bradley–Terry fit of every pair's record
(``craits.ratings.bradley_terry``), refitted from the last fit whenever games came in, with
each version's variance read from the fit's information. Two things differ from the board, both
because the matchmaker's use is the *doubt* of a pair's order, Φ(−|μ_a − μ_b| / √(σ_a² + σ_b²)):

* **a finish's pairs are whole comparisons**, where the board weighs each 1/(N−1) (one game
  is worth one game to each player, for the Elo scale). At tables of 4 the board's weights
  make the information a third of what the games hold. Simulated, 16 versions 40 Elo apart
  after 200 games: on random tables the doubts summed to 0.99 of the discordant pairs counted
  (``tests/contest/test_estimate.py``), with the board's weights 1.8 times; on the
  matchmaker's tables (20 runs) 1.1 to 2.3 times over 64 to 800 games, with the board's 1.6
  to 4.9. The prior is scaled with them (``PRIOR``), so the ratings are the board's.
* **the variance is around the field's mean**: the fit's covariance, centred on the versions
  that play. A version's own variance holds the whole field's common shift (how far every
  rating may move together, which no order depends on) and made every pair look equally in
  doubt, whatever their games.

Only the versions that play now are fitted, on the games among them: a contest of weeks holds
hundreds of retired versions, and the fit costs O(versions³) a refit (Newton's step and the
covariance), which the field that plays keeps to milliseconds (1.2 of CPU at 16 versions, 72
at 100: ``docs/benchmarks.md``).
A retired version's games against those still playing leave the estimate with it; the board
keeps them.

Why not the online Plackett–Luce update (Weng and Lin's, openskill's model) the matchmaker read
before: it learns each game once, in the order the games came, and early games move it by
their luck with nothing to correct them later. On the matchmaker's tables (60 simulated runs,
16 versions 40 Elo apart) its orders held 1.2 to 1.7 times the discordant pairs of this fit
after 140 to 500 games, and over 1,000 paired runs of the benchmark the matchmaker reading
this fit took 0.91 of the games to the true order's tau and 0.76 to the exact top 3 with
versions 40 Elo apart, 0.97 and 0.89 in a realistic field (``docs/benchmarks.md``, "Now: the
matchmaker reads the fit"). The fit of all games is also the same whatever order or batches
the games came in, so a restarted service rebuilds it.
"""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass
from typing import Final

from craits.ratings.bradley_terry import Tally, centre, fit, information, inverse
from craits.ratings.elo import ELO_PER_NAT
from craits.ratings.results import ScoredGame

PRIOR: Final = 3.0
"""Virtual drawn comparisons of each version against the field's middle: the board's one
game's worth (``DEFAULT_PRIOR``) at a table of 4, where a game is three whole comparisons to
each player. A version with no games is 200 Elo either way (one σ)."""
REFIT_TOLERANCE: Final = 1e-4
"""Newton's stopping step (nats): from the last fit, a few more games move the answer by far
less than any doubt can tell (the benchmark's board refits stop at the same)."""


@dataclass(slots=True)
class Skill:
    """One version's estimate, Elo scale: its rating and the variance of it around the field's
    mean."""

    mu: float = 0.0
    var: float = ELO_PER_NAT * ELO_PER_NAT / (PRIOR / 4.0)


class FieldEstimate:
    """Every pair's record of whole comparisons, and the fit of the playing field from it."""

    def __init__(self) -> None:
        self.records: dict[tuple[str, str], tuple[float, float]] = {}
        """``(a, b)`` with a < b: a's score against b, and their comparisons (one per finish
        both were in). Its size is that of the pairs that ever met, not of the games."""
        self.skills: dict[str, Skill] = {}
        """The last fit's estimates, per version fitted."""
        self._games = 0
        """Games counted so far: with the field, what the last fit saw (``_fitted``)."""
        self._fitted: tuple[int, frozenset[str]] | None = None
        self._ratings: dict[str, float] = {}

    def add(self, game: ScoredGame) -> None:
        """Count one finished game's pairs."""
        for a, b, score in game.pairs():
            if a > b:
                a, b, score = b, a, 1.0 - score
            had, met = self.records.get((a, b), (0.0, 0.0))
            self.records[a, b] = (had + score, met + 1.0)
        self._games += 1

    def get(self, version: str) -> Skill:
        """The last fit's estimate of ``version`` (the prior if it was not fitted)."""
        return self.skills.get(version) or Skill()

    def fitted(self, versions: Sequence[str]) -> dict[str, Skill]:
        """The estimates of ``versions`` (the field that plays now), refitted when games came
        in or the field changed since the last fit. With no games counted there is nothing to
        fit: every version is at the prior, or at what was set in ``skills``."""
        key = (self._games, frozenset(versions))
        if self._games and key != self._fitted:
            self._refit(sorted(key[1]))
            self._fitted = key
        return {v: self.get(v) for v in versions}

    def _refit(self, ids: list[str]) -> None:
        if not ids:
            self.skills = {}
            return
        index = {v: i for i, v in enumerate(ids)}
        tally = Tally(len(ids))
        tally.add((index[a], index[b], score, met) for (a, b), (score, met)
                  in self.records.items() if a in index and b in index)
        ratings = fit(tally, PRIOR, [self._ratings.get(v, 0.0) for v in ids],
                      tolerance=REFIT_TOLERANCE)
        self._ratings = dict(zip(ids, ratings, strict=True))
        cov = inverse(information(tally, ratings, PRIOR))
        n = len(ids)
        row = [sum(r) / n for r in cov]
        mean = sum(row) / n
        scale = ELO_PER_NAT * ELO_PER_NAT
        self.skills = {v: Skill(mu, (cov[i][i] - 2.0 * row[i] + mean) * scale)
                       for i, (v, mu) in enumerate(zip(ids, centre(ratings), strict=True))}
