"""The import contract of docs/architecture.md: rooms import downwards only; typer only in filon/, textual only in tui/."""

from __future__ import annotations

import shutil
import subprocess
import sys
from pathlib import Path

import pytest

from tests.conftest import REPO

HEADLESS = [
    "filon.agent",
    "filon.agent.scripted",
    "filon.agent.service",
    "filon.miner",
    "filon.tracing",
    "filon.goldens",
]


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
    """No module over 400 lines in any room, no function over 60 (a newcomer reads one at a time). A
    command's signature declares its options, one per few lines: its length is counted from its code."""
    import ast

    big: list[str] = []
    for room in ("filon", "tui", "goldens", "tracing", "agent", "miner"):
        for path in sorted((REPO / room).rglob("*.py")):
            text = path.read_text(encoding="utf-8")
            if text.count("\n") > 400:
                big.append(f"{path.relative_to(REPO)}: {text.count(chr(10))} lines")
            command = path.parent.name == "commands"
            for node in ast.walk(ast.parse(text)):
                if isinstance(node, ast.FunctionDef | ast.AsyncFunctionDef):
                    code = node.body[1:] if ast.get_docstring(node) is not None else node.body
                    start = code[0].lineno if command and code else node.lineno
                    length = (node.end_lineno or node.lineno) - start + 1
                    if length > 60:
                        big.append(f"{path.relative_to(REPO)}: {node.name} has {length} lines")
    assert big == []


def test_filon_is_the_one_import_name_beside_a_team_s_own_agent(tmp_path: Path) -> None:
    """A team's project with its own `agent` and `tracing` packages (names any team may use) imports
    filon's CLI, agent and gate without either being touched: filon's rooms are `filon.*` only."""
    for name in ("agent", "tracing", "miner", "tui", "goldens"):
        (tmp_path / name).mkdir()
        (tmp_path / name / "__init__.py").write_text(
            f"raise ImportError('the team\\'s own {name} was imported')\n"
        )
    code = (
        "import sys; sys.path.insert(0, sys.argv[1]); "
        "import filon.cli, filon.agent.service, filon.goldens.evaluate, filon.tracing.receiver, filon.tui; "
        # the data filon reads from its own packages: never from a top-level name
        "from filon.goldens.verdict.report import prices; prices(); "
        "from filon.agent.shop.fixtures import default_fixtures; default_fixtures(); "
        "from filon.agent.knowledge.search import search; search('frais de livraison'); "
        "from filon.agent.prompts import load_prompt; load_prompt(None); "
        "print(sorted(m for m in sys.modules if m.split('.')[0] in ('agent', 'tracing', 'miner', 'tui', 'goldens')))"
    )
    out = subprocess.run(
        [sys.executable, "-c", code, str(tmp_path)], capture_output=True, text=True, cwd=tmp_path
    )
    assert out.returncode == 0, out.stderr[-2000:]
    assert out.stdout.strip() == "[]"


def test_the_wheel_installs_filon_and_nothing_else(tmp_path: Path) -> None:
    """The wheel's top level is `filon` alone, and the rooms (linked into filon/) are in it with their data."""

    existed = (REPO / "build").exists()
    try:
        _check_wheel(tmp_path)
    finally:
        if not existed:  # setuptools builds in the checkout's build/: leave the checkout as it was
            shutil.rmtree(REPO / "build", ignore_errors=True)


def _check_wheel(tmp_path: Path) -> None:
    import zipfile

    built = subprocess.run(
        [
            sys.executable,
            "-m",
            "pip",
            "wheel",
            str(REPO),
            "--no-deps",
            "--no-build-isolation",
            "-q",
            "-w",
            str(tmp_path),
        ],
        capture_output=True,
        text=True,
    )
    assert built.returncode == 0, built.stderr[-2000:]
    [wheel] = tmp_path.glob("filon-*.whl")
    names = zipfile.ZipFile(wheel).namelist()
    top = zipfile.ZipFile(wheel).read(next(n for n in names if n.endswith("top_level.txt"))).decode()
    assert top.split() == ["filon"]
    assert {n.split("/")[0] for n in names} == {
        "filon",
        wheel.name.split("-")[0] + "-" + wheel.name.split("-")[1] + ".dist-info",
    }
    for needed in (
        "filon/miner/rules/flags.py",
        "filon/agent/prompts/system.md",
        "filon/agent/shop/fixtures.json",
        "filon/miner/core/messages.toml",  # the catalogue of what filon says
    ):
        assert needed in names
