"""Final ratings: the Bradley–Terry maximum-likelihood fit to all pairwise results.

Model: bot i has strength θ_i and beats bot j with probability σ(θ_i − θ_j) (σ the logistic
function); ratings are θ on the Elo scale (``ELO_PER_NAT`` · θ), so a 400-point gap means odds of
10 to 1, exactly as in ``elo.expected_score``. A game of N players contributes its N(N−1)/2 pairs,
each weighted 1/(N−1) (a game is worth one game to each player, as in the online Elo); ties count
half to each.

Each bot also plays ``prior`` virtual drawn games against a fixed opponent at strength 0. That
keeps a bot that never loses (or never wins) finite and makes the likelihood strictly concave, so
Newton's method converges in a handful of steps from any start. The fit is then centred: the mean
rating is 0 (only differences mean anything). Why this fits Craits finishes (and why the
intervals must come from a deal-set bootstrap) is in ``docs/ratings.md``.
"""

from __future__ import annotations

import math
from collections.abc import Iterable, Sequence
from operator import mul
from typing import Final

from .elo import ELO_PER_NAT
from .results import ScoredGame

DEFAULT_PRIOR: Final = 1.0
"""Virtual drawn games per bot against the field average (a weak prior: one game's worth)."""

PairEntry = tuple[int, int, float, float]
"""``(i, j, i's score, games)`` with i < j: the pairwise record of two bots, by index."""


class Tally:
    """Pairwise records summed over games: each bot's score and the games of each pair."""

    def __init__(self, n: int) -> None:
        self.n = n
        self.wins = [0.0] * n
        self.games: dict[tuple[int, int], float] = {}

    def add(self, entries: Iterable[PairEntry]) -> None:
        """Add pairwise records (one game's, one deal set's, or any sum of them)."""
        wins, games = self.wins, self.games
        for i, j, score, weight in entries:
            wins[i] += score
            wins[j] += weight - score
            games[i, j] = games.get((i, j), 0.0) + weight


def pair_entries(result: ScoredGame, index: dict[str, int]) -> list[PairEntry]:
    """One game's pairwise records, each pair weighted 1/(N−1)."""
    weight = 1.0 / (len(result.seats) - 1)
    out: list[PairEntry] = []
    for a, b, score in result.pairs():
        i, j = index[a], index[b]
        if i > j:
            i, j, score = j, i, 1.0 - score
        out.append((i, j, score * weight, weight))
    return out


def bradley_terry(
    results: Iterable[ScoredGame],
    bots: Sequence[str],
    prior: float = DEFAULT_PRIOR,
) -> dict[str, float]:
    """Maximum-likelihood ratings (Elo scale) of ``bots`` from ``results``."""
    index = {bot: i for i, bot in enumerate(bots)}
    tally = Tally(len(bots))
    for result in results:
        tally.add(pair_entries(result, index))
    ratings = fit(tally, prior)
    return dict(zip(bots, centre(ratings), strict=True))


def fit(tally: Tally, prior: float = DEFAULT_PRIOR, start: Sequence[float] | None = None,
        tolerance: float = 1e-9) -> list[float]:
    """Maximise the penalised likelihood by Newton's method; returns Elo-scale ratings.

    ``start`` (Elo scale, e.g. the full-data fit when bootstrapping) only saves iterations: the
    likelihood is strictly concave, so the answer does not depend on it. Newton stops after a
    step that moves no rating by ``tolerance`` nats or more; near the answer each step is about
    the square of the one before, so a caller that starts close (a refit after a few more
    games) may stop a step earlier with a larger one and lose nothing.
    """
    if prior <= 0:
        raise ValueError("prior must be positive (it keeps the ratings finite and identified)")
    pairs = [(i, j, n) for (i, j), n in tally.games.items() if n > 0]
    theta = [r / ELO_PER_NAT for r in start] if start is not None else [0.0] * tally.n
    target = [w + prior / 2 for w in tally.wins]
    value = _log_likelihood(theta, target, pairs, prior)
    for _ in range(100):
        grad, info = _gradient_and_information(theta, target, pairs, prior)
        step = _solve_spd(info, grad)
        scale = 1.0
        while True:
            trial = [t + scale * s for t, s in zip(theta, step, strict=True)]
            trial_value = _log_likelihood(trial, target, pairs, prior)
            if trial_value >= value - 1e-12 or scale < 1e-6:
                break
            scale /= 2
        theta, value = trial, trial_value
        if max(map(abs, step)) * scale < tolerance:
            break
    return [t * ELO_PER_NAT for t in theta]


def information(tally: Tally, ratings: Sequence[float], prior: float = DEFAULT_PRIOR
                ) -> list[list[float]]:
    """Minus the Hessian of the penalised log-likelihood at ``ratings`` (Elo scale), in nats:
    the curvature a sandwich variance wraps around the spread of the deal sets' scores."""
    theta = [r / ELO_PER_NAT for r in ratings]
    pairs = [(i, j, n) for (i, j), n in tally.games.items() if n > 0]
    return _gradient_and_information(theta, tally.wins, pairs, prior)[1]


def scores(entries: Iterable[PairEntry], theta: Sequence[float]) -> dict[int, float]:
    """The gradient of the (unpenalised) log-likelihood of ``entries`` at ``theta`` (ratings in
    nats, ``ELO_PER_NAT`` times smaller than Elo), per bot: each pair adds its observed minus
    its expected score. Summed over the data it is (minus the prior's pull) zero at the fit;
    one deal set's says how far that deal set alone pulls each rating. Sparse (only the bots
    of ``entries`` have a key): a deal set holds a few bots of many."""
    out: dict[int, float] = {}
    for i, j, score, games in entries:
        residual = score - games * _sigmoid(theta[i] - theta[j])
        out[i] = out.get(i, 0.0) + residual
        out[j] = out.get(j, 0.0) - residual
    return out


def solve(matrix: list[list[float]], rhs: Sequence[float]) -> list[float]:
    """``matrix⁻¹ · rhs`` for a symmetric positive definite ``matrix`` (an information)."""
    return _solve_spd(matrix, rhs)


def inverse(matrix: list[list[float]]) -> list[list[float]]:
    """``matrix⁻¹`` of a symmetric positive definite ``matrix``, rows: one factorisation for
    all n columns (n solves would factor it n times)."""
    n = len(matrix)
    low = _cholesky(matrix)
    columns = [_substitute(low, [1.0 if k == c else 0.0 for k in range(n)]) for c in range(n)]
    return [list(row) for row in zip(*columns, strict=True)]


def centre(ratings: Sequence[float]) -> list[float]:
    """Shift ratings so that their mean is 0."""
    mean = sum(ratings) / len(ratings)
    return [r - mean for r in ratings]


def _sigmoid(x: float) -> float:
    if x >= 0:
        return 1.0 / (1.0 + math.exp(-x))
    e = math.exp(x)
    return e / (1.0 + e)


def _log_likelihood(theta: Sequence[float], target: Sequence[float],
                    pairs: Sequence[tuple[int, int, float]], prior: float) -> float:
    """Σ scores·θ − Σ games·log(e^θi + e^θj), the prior's virtual games included; each
    log(e^a + e^b) as max(a, b) + log1p(e^−|a−b|), which cannot overflow, written out in the
    loops (Newton's line search calls this a few times a fit: a call per pair cost 40%)."""
    log1p, exp = math.log1p, math.exp
    value = sum(w * t for w, t in zip(target, theta, strict=True))
    value -= prior * sum(max(t, 0.0) + log1p(exp(-abs(t))) for t in theta)
    for i, j, n in pairs:
        a, b = theta[i], theta[j]
        value -= n * ((a if a >= b else b) + log1p(exp(-abs(a - b))))
    return value


def _gradient_and_information(
    theta: Sequence[float], target: Sequence[float],
    pairs: Sequence[tuple[int, int, float]], prior: float,
) -> tuple[list[float], list[list[float]]]:
    """The gradient, and minus the Hessian (positive definite thanks to the prior)."""
    n = len(theta)
    grad = list(target)
    info = [[0.0] * n for _ in range(n)]
    for i, t in enumerate(theta):
        p = _sigmoid(t)
        grad[i] -= prior * p
        info[i][i] += prior * p * (1 - p)
    for i, j, games in pairs:
        p = _sigmoid(theta[i] - theta[j])
        grad[i] -= games * p
        grad[j] -= games * (1 - p)
        v = games * p * (1 - p)
        info[i][i] += v
        info[j][j] += v
        info[i][j] -= v
        info[j][i] -= v
    return grad, info


def _solve_spd(matrix: list[list[float]], rhs: Sequence[float]) -> list[float]:
    """Solve ``matrix · x = rhs`` for a symmetric positive definite matrix (Cholesky)."""
    return _substitute(_cholesky(matrix), rhs)


def _cholesky(matrix: list[list[float]]) -> list[list[float]]:
    """The lower triangular L with L · Lᵀ = ``matrix`` (symmetric positive definite). The dot
    products by ``map(mul, …)``: the same sums in the same order as a generator's, 20-25%
    faster at 16-50 bots (the matchmaking benchmark refits its boards a thousand times a run)."""
    n = len(matrix)
    low = [[0.0] * n for _ in range(n)]
    for i in range(n):
        row = low[i]
        for j in range(i):
            row[j] = (matrix[i][j] - sum(map(mul, row[:j], low[j][:j]))) / low[j][j]
        row[i] = math.sqrt(matrix[i][i] - sum(map(mul, row[:i], row[:i])))
    return low


def _substitute(low: list[list[float]], rhs: Sequence[float]) -> list[float]:
    """Solve L · Lᵀ · x = ``rhs`` given the Cholesky factor L (forward, then back)."""
    n = len(rhs)
    y = [0.0] * n
    for i in range(n):
        y[i] = (rhs[i] - sum(map(mul, low[i][:i], y[:i]))) / low[i][i]
    x = [0.0] * n
    upper = list(zip(*low, strict=True))  # Lᵀ, by rows
    for i in reversed(range(n)):
        x[i] = (y[i] - sum(map(mul, upper[i][i + 1:], x[i + 1:]))) / low[i][i]
    return x
