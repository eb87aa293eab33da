"""A flag's reason is a code of the catalogue: stored beside its English (`flags.reason_code`), said in
French or English by `traces show --lang`, and read back as its English when the code cannot be said."""

from __future__ import annotations

import json
import os

from sqlalchemy import create_engine, text
from typer.testing import CliRunner

from filon.cli import app
from filon.miner.core.messages import Said

runner = CliRunner()


def _flagged() -> str:
    """A conversation of the shop's short prompt that rules flagged (it leaks, it tells orders early)."""
    args = [
        "traffic",
        "--backend",
        "scripted",
        "--seed",
        "3",
        "-n",
        "20",
        "--prompt",
        "agent/prompts/court.md",
    ]
    assert runner.invoke(app, [*args, "--sample-rate", "0"]).exit_code == 0
    listed = json.loads(runner.invoke(app, ["traces", "list", "--flag", "security", "--json"]).stdout)
    return str(listed[0]["conversation_id"])


def _show(cid: str, *args: str) -> dict:
    result = runner.invoke(app, ["traces", "show", cid, "--json", *args])
    assert result.exit_code == 0, result.output
    return json.loads(result.stdout)


def test_a_rule_flag_is_stored_as_a_code_and_said_in_either_language() -> None:
    cid = _flagged()
    english, french = _show(cid)["flags"], _show(cid, "--lang", "fr")["flags"]
    assert english and len(english) == len(french)
    for en, fr in zip(english, french, strict=True):
        code = Said.model_validate(en["reason_code"])
        assert code.code.startswith("flag.") and fr["reason_code"] == en["reason_code"]
        assert en["reason"] == code.render("en") and fr["reason"] == code.render("fr")
        assert fr["reason"] != en["reason"]
    shown = runner.invoke(app, ["traces", "show", cid, "--lang", "fr"])
    assert shown.exit_code == 0 and french[0]["reason"].split(" (")[0][:30] in " ".join(shown.stdout.split())
    engine = create_engine(os.environ["FILON_DB"])
    with engine.connect() as conn:
        stored = conn.execute(
            text("SELECT reason, reason_code FROM flags WHERE conversation_id = :c"), {"c": cid}
        )
        rows = stored.all()
    engine.dispose()
    assert {r.reason for r in rows} == {f["reason"] for f in english}  # the store keeps the English too
    assert all(json.loads(r.reason_code)["code"].startswith("flag.") for r in rows)


def test_a_code_that_cannot_be_said_falls_back_to_the_stored_english() -> None:
    cid = _flagged()
    engine = create_engine(os.environ["FILON_DB"])
    with engine.begin() as conn:
        conn.execute(
            text("UPDATE flags SET reason_code = '{not json' WHERE conversation_id = :c"), {"c": cid}
        )
        conn.execute(text("UPDATE flags SET reason = 'as stored' WHERE conversation_id = :c"), {"c": cid})
    engine.dispose()
    flags = _show(cid, "--lang", "fr")["flags"]
    assert flags and all(f["reason"] == "as stored" and f["reason_code"] is None for f in flags)


def test_an_unknown_language_is_one_line_and_exit_2() -> None:
    result = runner.invoke(app, ["traces", "show", "web:x", "--lang", "de"])
    assert result.exit_code == 2
    assert "--lang 'de'" in result.output and "Traceback" not in result.output
