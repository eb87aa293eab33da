"""What filon refuses is a sentence of the catalogue: no library module raises an error whose message is a
sentence of its own. A refusal (`messages.Refusal`: a file, an option, a setting, a payload) carries its
code, is said in English by `str()` and the logs, and by the commands in the CLI's language; the few
literal messages left are named here with why they stay."""

from __future__ import annotations

import ast
import os
from pathlib import Path

import pytest
from typer.testing import CliRunner

from filon.cli import app
from filon.miner.core.messages import Refusal, Said, said, why

ROOT = Path(__file__).resolve().parents[3]
ROOMS = ("goldens", "tracing", "miner", "agent", "tui", "filon")
# errors whose message stays a literal, and why
LITERAL = {
    "RuntimeError": "a programming error: registries that disagree, an unreachable branch",
    "AssertionError": "a programming error",
    "NotImplementedError": "a programming error",
    "TypeError": "a programming error",
    "KeyError": "a programming error",
    "WireError": "a frame that is not filon's on its own pipe: a bug, never a user's input",
    "OverBudget": "the receiver's 503 text, said over HTTP to an exporter, not to a person",
    "CircuitOpen": "an httpx transport error the model calls turn into a sentence (`infra.circuit_open`)",
    "ToolError": "the reference shop's tool result, said in French to the model under observation",
}
VALIDATORS = {"field_validator", "model_validator"}  # pydantic says these in its own words, case by case


def _literal(node: ast.expr) -> bool:
    if isinstance(node, ast.JoinedStr):
        return True
    if isinstance(node, ast.Constant):
        return isinstance(node.value, str)
    if isinstance(node, ast.BinOp):
        return _literal(node.left) or _literal(node.right)
    return False


def _name(func: ast.expr) -> str:
    return func.attr if isinstance(func, ast.Attribute) else getattr(func, "id", "")


def _decorators(fn: ast.FunctionDef | ast.AsyncFunctionDef) -> set[str]:
    return {_name(d.func if isinstance(d, ast.Call) else d) for d in fn.decorator_list}


def _sentences_raised(path: Path, root: Path = ROOT) -> list[str]:
    tree = ast.parse(path.read_text(encoding="utf-8"))
    skipped: set[int] = set()
    for fn in ast.walk(tree):
        if isinstance(fn, ast.FunctionDef | ast.AsyncFunctionDef) and _decorators(fn) & VALIDATORS:
            skipped |= {id(n) for n in ast.walk(fn)}
    found = []
    for node in ast.walk(tree):
        if not isinstance(node, ast.Raise) or id(node) in skipped or not isinstance(node.exc, ast.Call):
            continue
        call = node.exc
        if call.args and _literal(call.args[0]) and _name(call.func) not in LITERAL:
            found.append(f"{path.relative_to(root)}:{node.lineno}: {_name(call.func)}")
    return found


def test_no_library_module_raises_a_sentence_of_its_own() -> None:
    files = [p for room in ROOMS for p in (ROOT / room).rglob("*.py") if ".venv" not in p.parts]
    assert len(files) > 150
    assert [hit for path in files for hit in _sentences_raised(path)] == []


def test_the_scan_finds_a_sentence_raised(tmp_path: Path) -> None:
    module = tmp_path / "tests" / "miner" / "core" / "_probe_refusal.py"
    module.parent.mkdir(parents=True)
    module.write_text('def f(x):\n    raise ValueError(f"{x}: bad")\n', encoding="utf-8")
    assert _sentences_raised(module, tmp_path) == ["tests/miner/core/_probe_refusal.py:2: ValueError"]


def test_a_refusal_is_english_text_and_keeps_its_code() -> None:
    exc = Refusal(said("err.config.no_folder", where="filon.toml: sources", folder="/nope"))
    assert str(exc) == "filon.toml: sources: no such folder /nope"
    assert isinstance(exc, ValueError)
    assert (
        isinstance(why(exc), Said) and why(exc).render("fr") == "filon.toml: sources : pas de dossier /nope"
    )
    assert why(ValueError("plain")) == "plain"


@pytest.mark.parametrize(
    ("content", "expected"),
    [
        ("tools = 3\n", "filon.toml: tools: a list of strings"),
        ("latency_ms = 0\n", "filon.toml: latency_ms: a number at least 1, not 0"),
        ("[rules.nope]\n", "filon.toml: rules.nope: unknown rule (known:"),
        ("[rules.fuite]\nseverity = 'grave'\n", "filon.toml: rules.fuite.severity: 'grave' is not one of"),
    ],
)
def test_a_command_says_a_refusal_in_one_english_line_its_path_as_written(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch, content: str, expected: str
) -> None:
    project = tmp_path / "shop[bold]"  # brackets rich would read as markup: the path is said as written
    (project / ".git").mkdir(parents=True)
    (project / "filon.toml").write_text(content, encoding="utf-8")
    monkeypatch.chdir(project)
    env = {"COLUMNS": "400", "FILON_HOME": str(tmp_path / "home"), "FILON_DB": ""}
    result = CliRunner().invoke(app, ["ingest", str(project / "none.json")], env=env)
    assert result.exit_code == 2, result.output
    line = result.output.strip().splitlines()[-1]
    assert line.startswith("error: ") and f"{project}{os.sep}{expected}" in line, line
    assert "Traceback" not in result.output
