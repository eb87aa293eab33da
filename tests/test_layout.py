"""The import contract of docs/architecture.md: rooms import downwards only; typer only in filon/, textual only in tui/."""

from __future__ import annotations

import shutil
import subprocess
import sys

import pytest

from tests.conftest import REPO

HEADLESS = ["agent", "agent.scripted", "agent.service", "miner", "tracing", "goldens"]


@pytest.mark.parametrize("module", HEADLESS)
def test_headless_rooms_load_neither_typer_nor_textual(module: str) -> None:
    code = (
        f"import importlib, sys; importlib.import_module({module!r}); "
        "print(','.join(m for m in ('typer', 'textual') if m in sys.modules))"
    )
    out = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True, check=True, cwd=REPO)
    assert out.stdout.strip() == ""


def test_cli_defers_slow_imports() -> None:
    code = "import sys, filon.cli; print(','.join(m for m in ('google.genai', 'textual', 'sqlmodel') if m in sys.modules))"
    out = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True, check=True, cwd=REPO)
    assert out.stdout.strip() == ""


def test_import_linter_contracts_hold() -> None:
    lint = shutil.which("lint-imports", path=str(REPO / ".venv" / "bin")) or shutil.which("lint-imports")
    if lint is None:
        pytest.skip("import-linter is not installed (make install brings it)")
    out = subprocess.run([lint], capture_output=True, text=True, cwd=REPO)
    assert out.returncode == 0, out.stdout + out.stderr


def test_modules_stay_small_enough_to_hold_in_ones_head() -> None:
    """No module over 400 lines in any room; no function over 60 in the headless rooms, where most of the
    work happens (a newcomer reads one at a time)."""
    import ast

    big: list[str] = []
    for room in ("filon", "tui", "goldens", "tracing", "agent", "miner"):
        for path in sorted((REPO / room).rglob("*.py")):
            text = path.read_text(encoding="utf-8")
            if text.count("\n") > 400:
                big.append(f"{path.relative_to(REPO)}: {text.count(chr(10))} lines")
            if room not in ("goldens", "tracing", "miner"):
                continue
            for node in ast.walk(ast.parse(text)):
                if isinstance(node, ast.FunctionDef | ast.AsyncFunctionDef):
                    length = (node.end_lineno or node.lineno) - node.lineno + 1
                    if length > 60:
                        big.append(f"{path.relative_to(REPO)}: {node.name} has {length} lines")
    assert big == []
