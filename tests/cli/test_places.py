"""The store, the redaction key and the set follow the project, not the current folder; every command that
opens a store names it once on stderr, absolute, and says when it made it."""

from __future__ import annotations

import json
from pathlib import Path

import pytest
from typer.testing import CliRunner

from filon.cli import app

runner = CliRunner()


@pytest.fixture
def project(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> Path:
    """A project (a repository with a filon.toml at its root) with a sub-folder, and no FILON_* paths set:
    the defaults are what is under test. The per-user folder is pointed at tmp_path too."""
    root = tmp_path / "shop"
    (root / ".git").mkdir(parents=True)
    (root / "filon.toml").write_text("", encoding="utf-8")
    (root / "src" / "deep").mkdir(parents=True)
    for name in ("FILON_DB", "FILON_HOME", "FILON_GOLDENS", "FILON_SECRET"):
        monkeypatch.delenv(name, raising=False)
    monkeypatch.setenv("XDG_DATA_HOME", str(tmp_path / "user-data"))
    return root


def test_a_command_in_a_sub_folder_uses_the_projects_store_and_names_it(
    project: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    monkeypatch.chdir(project / "src" / "deep")
    first = runner.invoke(app, ["traces", "list"])
    assert first.exit_code == 0, first.output
    store = project / "var" / "filon.db"
    assert store.is_file()
    assert not (project / "src" / "deep" / "var").exists()
    assert f"store: {store} (new: made just now)" in first.stderr
    assert f"in the store {store}" in first.stdout  # the message names the absolute path, not var/…
    monkeypatch.chdir(project)
    again = runner.invoke(app, ["traces", "list"])
    assert again.stderr.count("store: ") == 1
    assert f"store: {store}\n" in again.stderr  # named once, and no longer new


def test_the_redaction_key_is_the_projects_wherever_the_command_runs(
    project: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    from filon.tracing.redact import load_secret

    monkeypatch.chdir(project / "src")
    key = load_secret()
    monkeypatch.chdir(project / "src" / "deep")
    assert load_secret() == key
    assert (project / "var" / "secret.key").read_bytes().strip() == key


def test_outside_any_project_the_store_is_the_per_user_one(
    tmp_path: Path, project: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    elsewhere = tmp_path / "elsewhere"
    (elsewhere / ".git").mkdir(parents=True)  # a repository with no filon.toml is not a project
    monkeypatch.chdir(elsewhere)
    result = runner.invoke(app, ["db", "stats"])
    assert result.exit_code == 0, result.output
    expected = tmp_path / "user-data" / "filon" / "filon.db"
    assert f"store: {expected}" in result.stderr
    assert expected.is_file()
    assert not (elsewhere / "var").exists()


def test_the_set_defaults_to_the_projects_goldens(project: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    cases = project / "goldens" / "cases"
    cases.mkdir(parents=True)
    case = {
        "id": "faq-01",
        "categorie": "faq",
        "canal": "web",
        "tours": ["Livrez-vous en Belgique ?"],
        "outils": ["rechercher_aide"],
        "contient": ["Belgique"],
    }
    (cases / "faq-01.json").write_text(json.dumps(case), encoding="utf-8")
    monkeypatch.chdir(project / "src")
    result = runner.invoke(app, ["goldens", "lint"])
    assert f"1 cases, 0 errors, 1 warnings in {cases}" in result.output, result.output


def test_a_postgres_store_is_named_without_its_password(monkeypatch: pytest.MonkeyPatch) -> None:
    from filon.miner.places import where

    assert (
        where("postgresql+psycopg://filon:s3cret@db:5432/filon")
        == "postgresql+psycopg://filon:***@db:5432/filon"
    )


def test_a_set_that_is_not_there_is_a_usage_error_with_a_hint(
    tmp_path: Path, project: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    """Exit 2 (nothing to replay), not 4 (an invalid set): the folder is simply missing."""
    elsewhere = tmp_path / "elsewhere"
    elsewhere.mkdir()
    monkeypatch.chdir(elsewhere)
    default = runner.invoke(app, ["eval", "--backend", "scripted"])
    assert default.exit_code == 2, default.output
    assert f"no golden set at {elsewhere / 'goldens' / 'cases'}" in default.stderr
    assert "--goldens or FILON_GOLDENS" in default.stderr
    typo = runner.invoke(app, ["eval", "--backend", "scripted", "--goldens", "goldens/casez"])
    assert (
        typo.exit_code == 2 and f"--goldens: no such folder {elsewhere / 'goldens' / 'casez'}" in typo.stderr
    )
    lint = runner.invoke(app, ["goldens", "lint", "casez"])
    assert lint.exit_code == 2 and f"error: no such folder {elsewhere / 'casez'}" in lint.stderr
    assert "FOLDER" not in lint.stderr  # the option's placeholder is no place


def test_a_cases_folder_copied_without_its_judges_says_where_the_rubrics_go(tmp_path: Path) -> None:
    import shutil

    from tests.conftest import REPO

    shutil.copytree(REPO / "goldens" / "cases", tmp_path / "mine")
    result = runner.invoke(app, ["goldens", "lint", str(tmp_path / "mine")])
    assert result.exit_code == 1  # lint fails until its rubrics are there
    said = [line for line in result.stderr.splitlines() if "no such rubric" in line]
    assert said and all(
        "copy goldens/judges there" in line and str(tmp_path / "judges") in line for line in said
    )
    shutil.copytree(REPO / "goldens" / "judges", tmp_path / "judges")
    assert runner.invoke(app, ["goldens", "lint", str(tmp_path / "mine")]).exit_code == 0
