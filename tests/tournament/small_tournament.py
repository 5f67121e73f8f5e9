"""The small tournament the store's tests keep: three bots, tables of two, a fixed seed."""

from __future__ import annotations

from craits.tournament.plan.config import TournamentConfig, config_from_dict


def small_config(deal_sets: int = 2) -> TournamentConfig:
    """Three bots at tables of 2 for ``deal_sets`` deal sets (seed 5): small enough that a
    test's schedule, claims and results can be read whole."""
    return config_from_dict({
        "name": "small", "seed": 5, "table_size": 2, "deal_sets": deal_sets,
        "bots": [{"name": "ann"}, {"name": "bob"}, {"name": "cy"}],
    })
