"""Printing game results (``craits match``, ``craits serve``) as text or JSON."""

from __future__ import annotations

from typing import Any

from craits.referee.game import PlayedGame


def result_to_dict(result: PlayedGame) -> dict[str, Any]:
    """A JSON-ready summary of one refereed game."""
    spec = result.spec
    return {
        "game_id": spec.game_id,
        "seed": spec.seed,
        "rules": spec.rules.to_dict(),
        "hands_played": result.outcome.hands_played,
        "decisions": len(result.moves),
        "seconds": round(result.seconds, 3),
        "seats": [
            {
                "seat": i,
                "bot": name,
                "total": result.totals[i],
                "place": result.places[i],
                "strikes": result.strikes[i],
                "forfeited": result.forfeited[i],
            }
            for i, name in enumerate(result.names)
        ],
        "faults": [
            {"seat": f.seat, "kind": f.kind, "detail": f.detail, "decision": f.decision_id,
             "strike": f.strike, "forfeit": f.forfeit}
            for f in result.faults
        ],
    }


def format_result(result: PlayedGame) -> str:
    """A small table: place, seat, bot, total, strikes, then any faults."""
    lines = [
        f"game {result.spec.game_id}: seed {result.spec.seed}, "
        f"{result.outcome.hands_played} hands, {len(result.moves)} decisions "
        f"in {result.seconds:.2f}s",
        f"{'place':>5}  {'seat':>4}  {'bot':<20} {'total':>6}  {'strikes':>7}",
    ]
    order = sorted(range(len(result.names)), key=lambda i: (result.places[i], i))
    for i in order:
        note = "  forfeited" if result.forfeited[i] else ""
        lines.append(
            f"{result.places[i]:>5}  {i:>4}  {result.names[i]:<20} {result.totals[i]:>6}  "
            f"{result.strikes[i]:>7}{note}"
        )
    for f in result.faults:
        lines.append(f"  fault: seat {f.seat} {f.kind} at decision {f.decision_id}: {f.detail}")
    return "\n".join(lines)
