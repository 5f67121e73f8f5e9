"""The rulings table in docs/rules.md stays true to the engine and the tests.

The table says, for each numbered ruling, where the engine carries it out and which tests check
it. A table like that rots the moment code moves (the engine's state machine is being split) or
a test is renamed, and a reader then trusts a pointer to nothing. So this reads the table and
the sources as text (the engine may run compiled, where ``inspect`` sees no source) and holds:
one row per numbered ruling, in order; each place named exists and cites the ruling's id there;
every citation in the engine stands at a place the table names for it; every test named exists.
"""

from __future__ import annotations

import ast
import importlib
import re
from dataclasses import dataclass
from pathlib import Path

import pytest

ROOT = Path(__file__).resolve().parents[2]
RULES = ROOT / "docs" / "rules.md"
ENGINE = ROOT / "server" / "craits" / "engine"
TESTS = Path(__file__).resolve().parent

SECTION = "## Rulings where the sources are silent"
TABLE = "### Where each ruling is enforced"
ROW = re.compile(r"^\| (R\d+) \| ([^|]+?) \| ([^|]+?) \| ([^|]+?) \|$")
CITATION = re.compile(r"\bruling (R\d+)\b")
UNNAMED_CITATION = re.compile(r"\brulings? \d")
"""A ruling cited by bare number ("ruling 2"): the table's ids are R1, R2, ..."""


@dataclass(frozen=True)
class Row:
    """One row of the table: a ruling's id, its line, where it is enforced and its tests."""

    id: str
    ruling: str
    places: tuple[str, ...]
    tests: tuple[str, ...]


def ticked(cell: str) -> tuple[str, ...]:
    """The backticked names of a cell, in order."""
    return tuple(re.findall(r"`([^`]+)`", cell))


def rulings_section(text: str) -> str:
    start = text.index(SECTION)
    return text[start:]


def numbered_rulings(text: str) -> list[int]:
    """The numbers of the numbered list of rulings (before the table)."""
    section = rulings_section(text)
    listing = section[: section.index(TABLE)]
    return [int(n) for n in re.findall(r"^(\d+)\. \*\*", listing, re.MULTILINE)]


def table_rows(text: str) -> list[Row]:
    section = rulings_section(text)
    rows = []
    for line in section[section.index(TABLE):].splitlines():
        match = ROW.match(line)
        if match:
            rid, ruling, places, tests = match.groups()
            rows.append(Row(rid, ruling, ticked(places), ticked(tests)))
    return rows


def segment(source: str, qualname: str) -> str | None:
    """The source text of ``qualname`` in a module: a function or method (its whole body, with
    comments, though not one after its last statement), a module-level constant with the
    docstring that follows it, or for an empty ``qualname`` the module's docstring. None if
    absent."""
    tree = ast.parse(source)
    if not qualname:
        return ast.get_docstring(tree, clean=False)
    lines = source.splitlines()
    first, *rest = qualname.split(".")
    body = tree.body
    for i, node in enumerate(body):
        if isinstance(node, ast.Assign | ast.AnnAssign) and not rest:
            targets = node.targets if isinstance(node, ast.Assign) else [node.target]
            if any(isinstance(t, ast.Name) and t.id == first for t in targets):
                end = node.end_lineno or node.lineno
                following = body[i + 1] if i + 1 < len(body) else None
                if isinstance(following, ast.Expr) and isinstance(following.value, ast.Constant):
                    end = following.end_lineno or end
                return "\n".join(lines[node.lineno - 1 : end])
    found: ast.FunctionDef | ast.AsyncFunctionDef | ast.ClassDef | None = None
    scope = body
    for name in (first, *rest):
        found = next(
            (
                n for n in scope
                if isinstance(n, ast.FunctionDef | ast.AsyncFunctionDef | ast.ClassDef)
                and n.name == name
            ),
            None,
        )
        if found is None:
            return None
        scope = found.body
    assert found is not None
    return "\n".join(lines[found.lineno - 1 : found.end_lineno])


def cites(source: str, qualname: str, rid: str) -> bool:
    """Whether ``qualname`` in ``source`` exists and cites ruling ``rid`` within it."""
    text = segment(source, qualname)
    return text is not None and rid in CITATION.findall(text)


def engine_source(module: str) -> str:
    return (ENGINE / f"{module}.py").read_text(encoding="utf-8")


def enclosing(source: str, line: int) -> str | None:
    """The qualified name of the innermost function, class or constant holding ``line`` (None
    for the module's own text, e.g. its docstring)."""
    tree = ast.parse(source)
    best: str | None = None

    def visit(nodes: list[ast.stmt], prefix: str) -> None:
        nonlocal best
        for i, node in enumerate(nodes):
            end = node.end_lineno or node.lineno
            if isinstance(node, ast.Assign | ast.AnnAssign) and not prefix:
                after = nodes[i + 1] if i + 1 < len(nodes) else None
                if isinstance(after, ast.Expr) and isinstance(after.value, ast.Constant):
                    end = after.end_lineno or end
                targets = node.targets if isinstance(node, ast.Assign) else [node.target]
                names = [t.id for t in targets if isinstance(t, ast.Name)]
                if names and node.lineno <= line <= end:
                    best = names[0]
            scopes = ast.FunctionDef | ast.AsyncFunctionDef | ast.ClassDef
            if isinstance(node, scopes) and node.lineno <= line <= end:
                best = prefix + node.name
                visit(node.body, best + ".")

    visit(tree.body, "")
    return best


TEXT = RULES.read_text(encoding="utf-8")
ROWS = table_rows(TEXT)


def test_one_row_per_numbered_ruling_in_order() -> None:
    numbers = numbered_rulings(TEXT)
    assert numbers == list(range(1, len(numbers) + 1)), "the rulings are numbered 1, 2, 3, ..."
    assert [row.id for row in ROWS] == [f"R{n}" for n in numbers]
    for row in ROWS:
        assert row.ruling and row.places and row.tests, row


@pytest.mark.parametrize("row", ROWS, ids=[row.id for row in ROWS])
def test_each_place_named_cites_the_ruling(row: Row) -> None:
    for place in row.places:
        module, _, qualname = place.partition(".")
        assert (ENGINE / f"{module}.py").is_file(), f"{row.id}: no module craits.engine.{module}"
        source = engine_source(module)
        assert segment(source, qualname) is not None, f"{row.id}: no {qualname} in {module}.py"
        assert cites(source, qualname, row.id), f"{row.id}: {place} does not cite 'ruling {row.id}'"


def test_every_citation_in_the_engine_is_at_a_place_the_table_names() -> None:
    places = {row.id: set(row.places) for row in ROWS}
    seen = 0
    for path in sorted(ENGINE.glob("*.py")):
        source = path.read_text(encoding="utf-8")
        assert not UNNAMED_CITATION.search(source), f"{path.name}: cite a ruling by id (R2)"
        for number, line in enumerate(source.splitlines(), start=1):
            for rid in CITATION.findall(line):
                seen += 1
                assert rid in places, f"{path.name}:{number} cites {rid}, not in the table"
                holder = enclosing(source, number)
                where = path.stem if holder is None else f"{path.stem}.{holder}"
                assert where in places[rid], (
                    f"{path.name}:{number} cites {rid} in {where}, which its row does not name"
                )
    assert seen >= len(ROWS)


@pytest.mark.parametrize("row", ROWS, ids=[row.id for row in ROWS])
def test_each_test_named_exists(row: Row) -> None:
    for named in row.tests:
        file, _, test = named.partition("::")
        name, _, param = test.partition("[")
        path = TESTS / file
        assert path.is_file(), f"{row.id}: no tests/engine/{file}"
        tree = ast.parse(path.read_text(encoding="utf-8"))
        functions = {n.name for n in tree.body if isinstance(n, ast.FunctionDef)}
        assert name.startswith("test_") and name in functions, f"{row.id}: no {named}"
        if param:
            module = importlib.import_module(f"tests.engine.{path.stem}")
            marks = getattr(getattr(module, name), "pytestmark", [])
            ids = [i for m in marks if m.name == "parametrize" for i in m.kwargs.get("ids", [])]
            assert param.rstrip("]") in ids, f"{row.id}: {named} is no parameter id of {name}"


SAMPLE = '''
LIMIT = 3
"""At most three (ruling R9)."""


def plain() -> None:
    pass


class Game:
    def step(self) -> None:
        # ruling R5: a comment inside the body
        x = 1  # ruling R4: here
        print(x)
'''


def test_the_checks_find_a_citation_only_where_it_stands() -> None:
    """The helpers the table's tests rely on say no as readily as yes."""
    assert cites(SAMPLE, "Game.step", "R4") and cites(SAMPLE, "Game.step", "R5")
    assert cites(SAMPLE, "LIMIT", "R9")
    assert not cites(SAMPLE, "plain", "R4")
    assert not cites(SAMPLE, "Game.step", "R9")
    assert not cites(SAMPLE, "Game.missing", "R4")
    assert not cites(SAMPLE, "Game.step", "R40")
    lines = SAMPLE.splitlines()
    assert enclosing(SAMPLE, lines.index("        x = 1  # ruling R4: here") + 1) == "Game.step"
    assert enclosing(SAMPLE, 3) == "LIMIT"
    assert enclosing('"""The module (ruling R1)."""\n', 1) is None
    assert cites('"""The module (ruling R1)."""\n', "", "R1")
    assert not cites('"""The module."""\nX = 1  # ruling R1\n', "", "R1")


def test_a_table_missing_a_row_or_out_of_order_is_caught() -> None:
    """Parse a trimmed copy of the page: the row check compares ids, not just counts."""
    trimmed = "\n".join(
        line for line in TEXT.splitlines() if not line.startswith(f"| {ROWS[1].id} |")
    )
    assert [row.id for row in table_rows(trimmed)] != [
        f"R{n}" for n in numbered_rulings(trimmed)
    ]
