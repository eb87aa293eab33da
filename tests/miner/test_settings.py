"""One settings class: every FILON_* variable of filon's rooms and EVAL_SEUIL, read when asked, with an error
naming the variable; the README lists each."""

from __future__ import annotations

import pytest
from typer.testing import CliRunner

from filon.cli import app
from filon.miner.settings import SettingsError, described, settings
from filon.tracing.redact import redaction_enabled
from filon.tracing.sampling.rate import rate_from_env
from filon.tracing.wire import offload_enabled
from tests.conftest import REPO


@pytest.mark.parametrize(
    ("raw", "expected"), [("off", False), ("0", False), ("no", False), ("true", True), ("1", True)]
)
def test_booleans_are_parsed_once_for_every_switch(
    raw: str, expected: bool, monkeypatch: pytest.MonkeyPatch
) -> None:
    for name in ("FILON_REDACT", "FILON_OFFLOAD", "FILON_CAPTURE_CONTENT"):
        monkeypatch.setenv(name, raw)
    assert (redaction_enabled(), offload_enabled(), settings().capture_content) == (expected,) * 3


@pytest.mark.parametrize(
    ("name", "value"),
    [
        ("FILON_SAMPLE_RATE", "lots"),
        ("FILON_SAMPLE_RATE", "1.5"),
        ("FILON_REDACT", "maybe"),
        ("EVAL_SEUIL", "x"),
    ],
)
def test_a_value_that_does_not_parse_names_its_variable(
    name: str, value: str, monkeypatch: pytest.MonkeyPatch
) -> None:
    monkeypatch.setenv(name, value)
    with pytest.raises(SettingsError, match=f"^{name}: .*{value!r}"):
        settings()


def test_read_when_asked(monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setenv("FILON_SAMPLE_RATE", "0.25")
    assert rate_from_env() == 0.25
    monkeypatch.delenv("FILON_SAMPLE_RATE")
    assert rate_from_env(0.1) == 0.1


def test_eval_seuil_error_is_one_line_and_exit_2(monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setenv("EVAL_SEUIL", "beaucoup")
    result = CliRunner().invoke(app, ["eval", "--backend", "scripted", "--ids", "faq-01"])
    assert result.exit_code == 2 and "EVAL_SEUIL: " in result.stderr and "Traceback" not in result.output


def test_the_settings_page_lists_every_setting_with_its_description() -> None:
    page = (REPO / "docs" / "settings.md").read_text(encoding="utf-8")
    for variable, description in described():
        assert description and f"| `{variable}` | {description} |" in page, variable


def test_any_command_that_opens_the_store_says_which_variable_is_wrong(
    monkeypatch: pytest.MonkeyPatch,
) -> None:
    monkeypatch.setenv("FILON_SAMPLE_RATE", "abc")
    for command in (["db", "stats"], ["traces", "list"], ["eval", "history"]):
        result = CliRunner().invoke(app, command)
        assert result.exit_code == 2, (command, result.output)
        assert result.stderr.count("\n") == 1 and "FILON_SAMPLE_RATE" in result.stderr


def test_the_settings_page_names_every_key_of_filon_toml() -> None:
    """A newcomer looked for `write_tools` on the settings page, which said it covered filon.toml."""
    from dataclasses import fields

    from filon.miner.rules.config import EXTRAS, FlagConfig

    page = (REPO / "docs" / "settings.md").read_text(encoding="utf-8").split("## filon.toml", 1)[1]
    for key in [f.name for f in fields(FlagConfig) if f.name != "rules"] + list(EXTRAS):
        assert f"`{key}`" in page, key
    assert "`[rules.NAME]`" in page
