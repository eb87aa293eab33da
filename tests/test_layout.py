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
