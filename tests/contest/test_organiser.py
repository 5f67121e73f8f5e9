"""The organiser's token: ``craits contest organiser-token DIR`` prints one, the store keeps only
its digest, running it again replaces it, and no contestant's token is the organiser's."""

from __future__ import annotations

from pathlib import Path

import pytest

from craits.cli.main import main
from craits.contest.organiser import is_organiser
from craits.contest.store import ContestStore
from craits.contest.tokens import token_digest

from .server import make_contest


def organiser_token(capsys: pytest.CaptureFixture[str], directory: Path) -> str:
    code = main(["contest", "organiser-token", str(directory)])
    out, err = capsys.readouterr()
    assert code == 0 and "Traceback" not in err and "shown only now" in out
    return out.splitlines()[-1]


def test_the_token_is_kept_as_a_digest_and_replaced_by_the_next(
        capsys: pytest.CaptureFixture[str], tmp_path: Path) -> None:
    tokens = make_contest(tmp_path / "cup", names=("alice",))
    first = organiser_token(capsys, tmp_path / "cup")
    assert first.startswith("cco_")
    stored = b"".join(p.read_bytes() for p in (tmp_path / "cup").glob("contest.db*"))
    assert first.encode() not in stored and token_digest(first).encode() in stored
    store = ContestStore.open(tmp_path / "cup" / "contest.db")
    try:
        assert is_organiser(store, first)
        assert not is_organiser(store, tokens["alice"])
        assert store.contestant_by_digest(token_digest(first)) is None
        second = organiser_token(capsys, tmp_path / "cup")
        assert is_organiser(store, second) and not is_organiser(store, first)
        assert not is_organiser(store, "") and not is_organiser(store, "cco_")
    finally:
        store.close()


def test_without_a_contest_it_says_how_to_make_one(capsys: pytest.CaptureFixture[str],
                                                  tmp_path: Path) -> None:
    code = main(["contest", "organiser-token", str(tmp_path)])
    _, err = capsys.readouterr()
    assert code == 2 and "craits contest init" in err and "Traceback" not in err
