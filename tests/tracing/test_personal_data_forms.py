"""Redaction and lint against an independent table of the forms personal data takes in the wild.

`fixtures/personal_data_forms.json` was written by hand, by someone who had not read filon's patterns:
phone numbers (national and international forms, "00" for "+", North American, inside ids such as
`whatsapp:0033612345678`), Luhn-valid card numbers (spaces, dashes, dots), mod-97-valid IBANs (grouped,
compact, lower-case), emails (an apostrophe, `bob@localhost`, brackets, `mailto:`); and texts that hold
none of them (orders, tracking numbers, amounts, dates, versions, ids) and must come out unchanged.
"""

from __future__ import annotations

import json
from pathlib import Path
from typing import Any

import pytest

from filon.tracing.personal_data import personal_data
from filon.tracing.redact import Redactor

TABLE = json.loads((Path(__file__).parent / "fixtures" / "personal_data_forms.json").read_text("utf-8"))
R = Redactor(b"oracle")


def _id(entry: dict[str, Any]) -> str:
    return f"{entry.get('kind', 'kept')}:{entry.get('value', entry['text'])[:40]}"


@pytest.mark.parametrize("entry", TABLE["redacted"], ids=_id)
def test_every_form_is_redacted_and_refused_by_lint(entry: dict[str, Any]) -> None:
    text, value = entry["text"], entry["value"]
    assert value not in R.text(text), R.text(text)
    assert value not in R.value({"k": text})["k"]  # the same through a span's attributes
    found = personal_data(text)
    assert any(value in written or written in value for _, written in found), found


@pytest.mark.parametrize("entry", TABLE["kept"], ids=_id)
def test_text_without_personal_data_comes_out_unchanged(entry: dict[str, Any]) -> None:
    assert R.text(entry["text"]) == entry["text"]
    assert personal_data(entry["text"]) == []


def test_the_table_is_wide_enough_to_mean_something() -> None:
    kinds = {e["kind"] for e in TABLE["redacted"]}
    assert kinds == {"phone", "card", "iban", "email"} and len(TABLE["redacted"]) >= 80
    assert len(TABLE["kept"]) >= 40
