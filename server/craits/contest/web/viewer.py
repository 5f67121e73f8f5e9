"""A ladder game's page: the static report's viewer (``craits.report``), fed from the contest's
store.

The ladder keeps a game as the tournament store does (its encoded record and outcome) plus its
seed and rules (``ladderstore.game_replay``), so the report's own loader check
(``stored.from_record``: the replay must end as recorded), frames and page are used as they
are, not copied. A game is recorded only once it is over, so the whole hands this page shows
are never those of a game still being played.
"""

from __future__ import annotations

from collections.abc import Mapping

from craits.ratings.results import ScoredGame
from craits.referee.policy import FailurePolicy, TimeControl
from craits.report.frames import game_frames
from craits.report.html_parts import Html
from craits.report.stored import from_record
from craits.report.viewer_page import viewer_page
from craits.tournament.plan.schedule import Job

from ..ladderstore import game_replay
from ..store import ContestStore


def game_viewer(store: ContestStore, contest: str, game: ScoredGame,
                names: Mapping[str, str]) -> Html | None:
    """The viewer's page of recorded ``game`` (seats by their public names); None when the
    store has no seed and rules for it (recorded before they were kept). ``ReplayMismatch``
    when its record does not replay to its outcome."""
    replay = game_replay(store, game.game_index)
    if replay is None:
        return None
    seats = tuple(names.get(s, s) for s in game.seats)
    job = Job(tournament_id="contest", game_index=game.game_index,
              meeting_index=game.meeting_index, meeting=seats, deal_set=game.deal_set,
              rotation=game.rotation, seats=seats, seed=replay.seed,
              rules_json=replay.rules_json, launch=(), time=TimeControl(),
              failure=FailurePolicy())
    result = ScoredGame(game.game_index, game.meeting_index, game.deal_set, game.rotation,
                        seats, game.totals, game.places, game.strikes, game.forfeited)
    stored = from_record("contest", contest, job, result, replay.record, replay.outcome)
    return viewer_page(stored, game_frames(stored), {"index": "/"})
