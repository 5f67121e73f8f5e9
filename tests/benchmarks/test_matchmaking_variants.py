"""The matchmaking bench's ``--variant KEY=VALUE,...``: the fields a variant changes, a tuple's
commas its own, and a mistake refused with the known fields."""

from __future__ import annotations

import pytest
from matchmaking_bench import variant_fields


def test_a_variant_reads_literals_tuples_included() -> None:
    assert variant_fields("top_weight=3,band=(0.25, 4.0)") == {
        "top_weight": 3, "band": (0.25, 4.0)}
    assert variant_fields("") == {}


@pytest.mark.parametrize("variant", ["top_wieght=3", "band=(0.25,", "explore=random()",
                                     "3", "**{'explore': 0}"])
def test_a_bad_variant_is_refused_with_the_known_fields(variant: str) -> None:
    with pytest.raises(SystemExit, match="KEY one of table_sizes, new_games"):
        variant_fields(variant)
