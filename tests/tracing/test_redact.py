"""Redaction: stable pseudonyms of the same shape, keyed by a local secret; nothing else touched."""

from __future__ import annotations

import json
import sys
from pathlib import Path

import pytest
from hypothesis import example, given
from hypothesis import strategies as st

from filon.tracing import redact
from filon.tracing.redact import Redactor, load_secret
from filon.tracing.redact_patterns import CANDIDATE, DIGIT_LEADS, SHAPE, candidate, shape_of

R = Redactor(b"secret")


@pytest.mark.parametrize(
    ("raw", "gone"),
    [
        ("écrivez à julien.robert@exemple.fr", "julien.robert"),
        ("mon numéro : 06 12 34 56 78", "06 12 34 56 78"),
        ("appelez le +33 6 12 34 56 78", "6 12 34 56 78"),
        ("whatsapp:33600000103", "33600000103"),
        ("ma carte 4111 1111 1111 1111 exp 12/28", "4111"),
        ("IBAN FR76 3000 6000 0112 3456 7890 189", "FR76"),
    ],
)
def test_identifiers_are_replaced(raw: str, gone: str) -> None:
    assert gone not in R.text(raw)


def test_same_value_same_pseudonym_and_shape_kept() -> None:
    a, b = R.text("a: Julien.Robert@exemple.fr"), R.text("b: julien.robert@exemple.fr")
    assert a[3:] == b[3:] and a.endswith("@redacted.invalid")
    assert R.text("0612345678") == R.text("+33612345678") == R.text("33612345678")
    assert Redactor(b"other").text("0612345678") != R.text("0612345678")


@pytest.mark.parametrize(
    "keep",
    [
        "commande LL-10587",
        "suivi 6A10563007FR",
        "148,00 € le 10/11/2026",
        "ticket T-0001",
        "4111 1111 1111 1112",
    ],
)
def test_other_text_is_untouched(keep: str) -> None:
    """Beside an identifier that goes, the rest stays as it was, to the character."""
    said = R.text(f"{keep} — écrivez à julien.robert@exemple.fr")
    assert said.startswith(f"{keep} — écrivez à ") and "julien.robert" not in said


@given(st.text(max_size=40), st.sampled_from(["julien.robert@exemple.fr", "06 12 34 56 78", "33600000103"]))
@example(text="0000", identifier="33600000103")  # the pseudonym among digits once passed Luhn: a "card"
def test_redaction_is_idempotent(text: str, identifier: str) -> None:
    """Redacting twice is redacting once, and the identifier went the first time."""
    once = R.text(f"{text} {identifier} {text}")
    assert identifier not in once
    assert R.text(once) == once


def test_nested_json_values_are_redacted() -> None:
    value = {"client": {"email": "a@b.fr", "tel": "33600000103", "n": 3}, "list": ["x@y.fr"]}
    out = R.value(value)
    assert "a@b.fr" not in str(out) and "33600000103" not in str(out) and out["client"]["n"] == 3


def test_the_secret_is_made_once_and_private(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.delenv("FILON_SECRET", raising=False)
    first = load_secret(tmp_path)
    assert load_secret(tmp_path) == first
    assert (tmp_path / "secret.key").stat().st_mode & 0o777 == 0o600
    monkeypatch.setenv("FILON_SECRET", "from-env")
    assert load_secret(tmp_path) == b"from-env"


@given(
    st.text(st.sampled_from("0123456789 .-+@AZFRx/é٣６") | st.characters(), max_size=60)
    | st.from_regex(r"[a-z.]{1,8}@[a-z]{1,6}\.fr|(\+33|0)[67]([ .-]?\d\d){4}|FR76( \d{4}){5} \d{3}")
    | st.sampled_from(["FR32ABCDEFGHIJKLMNOP", "FR32 ABCD EFGH IJKL MNOP", "+33 6 12 34 56"])
)
def test_the_candidate_search_only_skips_strings_the_patterns_leave_alone(text: str) -> None:
    """`text` runs the four patterns only where one search finds what one of them needs; on any string it
    gives what the four patterns give."""
    fresh = Redactor(b"secret")
    assert fresh.text(text) == fresh.patterns(text, definition=True)
    long = text * (600 // max(1, len(text)) + 1)  # and the memo of long strings
    assert fresh.text(long) == fresh.patterns(long, definition=True) == fresh.text(long)
    for _ in range(2):  # and in JSON values, as keys and values, remembered or not
        assert fresh.value({text: [text, long]}) == {
            fresh.patterns(text, definition=True): [
                fresh.patterns(text, definition=True),
                fresh.patterns(long, definition=True),
            ]
        }


@given(st.text(st.sampled_from("0123456789 .-@AZFRx/é٣６\U0001d7ce") | st.characters(), max_size=40))
def test_the_shape_test_misses_nothing_the_candidate_pattern_finds(text: str) -> None:
    """`candidate` reads the text's bytes, not the text: wherever the pattern of what the four need finds
    something (digits of any script included), it says so too."""
    if CANDIDATE.search(text) is not None:
        assert candidate(text)
    assert candidate(f"x{text}06 12 34 56 78") and candidate(f"{text}a@b") and not candidate("LL-10563 abc")


def test_every_digit_of_another_script_begins_with_a_byte_the_shape_test_looks_for() -> None:
    """`shape_of` looks for digits of another script only in a text holding one of `DIGIT_LEADS`: every
    such digit of the Unicode this Python knows begins with one, and a text with one has no shape."""
    leads = {
        chr(c).encode("utf-8")[0]
        for c in range(0x80, sys.maxunicode + 1)
        if not 0xD800 <= c <= 0xDFFF and chr(c).isdecimal()
    }
    assert leads <= DIGIT_LEADS
    assert shape_of("appelez le ٠٦١٢٣٤٥٦٧٨, merci ") is None
    assert shape_of("écrivez à ０６１２ ou au \U0001d7ce") is None
    prose = "écrivez-moi « vite » — 06 12"
    assert shape_of(prose) == prose.encode().translate(SHAPE)


def test_keys_are_redacted_once_remembered() -> None:
    fresh = Redactor(b"secret")
    value = {"a@b.fr": 1, "n": {"a@b.fr": [2, "0612345678"]}}
    assert (
        fresh.value(value)
        == fresh.value(value)
        == {
            fresh.text("a@b.fr"): 1,
            "n": {fresh.text("a@b.fr"): [2, fresh.text("0612345678")]},
        }
    )


def test_a_long_string_that_keeps_coming_back_is_redacted_once() -> None:
    """System instructions come with every model call, between histories that never come twice: the
    redacted instructions are kept (least recently used go first), not redone after every 64 strings."""
    fresh = Redactor(b"secret")
    instructions = "Tu es l'assistant de Lin et Laine ; le service client répond au 01 23 45 67 89. " * 10
    results = [fresh.text(instructions)]
    for n in range(300):
        fresh.text(f"{n} : " + "un historique qui ne revient jamais " * 20)
        if n % 5 == 0:
            results.append(fresh.text("".join(list(instructions))))  # equal, another object
    assert "01 23 45 67 89" not in results[0]
    assert all(r is results[0] for r in results)


def test_a_history_comes_back_after_many_others_and_the_kept_ones_stay_bounded(
    monkeypatch: pytest.MonkeyPatch,
) -> None:
    """An agent's history is on its model, tool and agent spans, with other conversations' between them:
    read once while it comes back after hundreds of other long strings; the least recently used go once
    the characters kept pass their bound, and come back read again (another object), redacted the same."""
    fresh = Redactor(b"secret")
    history = json.dumps([{"role": "user", "content": "rappelez-moi au 06 12 34 56 78 " * 20}])
    first = fresh.text(history)
    assert "06 12 34 56 78" not in first
    for n in range(300):
        fresh.text(f"{n} : " + "une conversation qui ne revient jamais " * 20)
    assert fresh.text("".join(list(history))) is first  # equal, another object: remembered
    monkeypatch.setattr(redact, "LONG_CHARS", 40 * len(history))
    for n in range(30):  # past the bound now: the history, least recently used, goes
        fresh.text(f"{n} : " + "une autre conversation " * 60)
    again = fresh.text(history)
    assert again == first and again is not first


def test_the_long_strings_kept_are_counted_in_number_and_characters(monkeypatch: pytest.MonkeyPatch) -> None:
    """The bounds hold as counted: past `LONG_KEPT` strings the oldest goes; a string read again is not
    counted again; one gone gives its characters back, so reading goes on keeping strings."""
    texts = [f"client {n} : rappelez-moi au 06 12 34 56 {n:02} " * 14 for n in range(40)]  # 580 characters
    fresh = Redactor(b"secret")
    monkeypatch.setattr(redact, "LONG_KEPT", 10)
    first = fresh.text(texts[0])
    for t in texts[1:10]:
        fresh.text(t)
    assert fresh.text("".join(list(texts[0]))) is first  # ten kept: still there, now the most recent
    for t in texts[10:20]:
        fresh.text(t)
    assert fresh.text(texts[0]) is not first  # ten others since: gone

    fresh = Redactor(b"secret")
    monkeypatch.setattr(redact, "LONG_KEPT", 1024)
    monkeypatch.setattr(redact, "LONG_CHARS", 3 * 2 * len(texts[0]))  # three strings and their forms
    for t in texts[:30]:  # many read and gone: each gave its characters back
        fresh.text(t)
    first = fresh.text(texts[30])
    for _ in range(20):  # read again and again: counted once
        assert fresh.text(texts[30]) is first
    fresh.text(texts[31])
    fresh.text(texts[32])
    assert fresh.text("".join(list(texts[30]))) is first  # three strings: within the bound


@pytest.mark.parametrize(
    "raw",
    [
        "NL91abna0417164300",  # a capital country, small letters after it
        "GB82 West 1234 5698 7654 32",
        "MT84 malt 0110 0001 2345 mtlc ast0 01s",
        "+49 (7531) 12345",  # digits split by parentheses
        "0049 (30) 12345",
    ],
)
def test_forms_a_review_found_past_the_shape_tests_are_redacted(raw: str) -> None:
    assert raw not in R.text(f"mon identifiant : {raw} merci")
    assert R.text(raw) == R.patterns(raw, definition=True)  # the shape tests skip nothing the patterns take


def test_a_batch_stored_twice_is_redacted_once(tmp_path: Path) -> None:
    """Ingest redacts copies: the records a caller hands over are left as they came, so a batch tried again
    (a deadlock replayed, a failed group stored request by request) is redacted from the original, not
    redacted twice (which turned a phone pseudonym into a card's)."""
    from filon.miner.store import Store
    from filon.tracing.ingest import Ingestor
    from filon.tracing.records import SpanRecord

    record = SpanRecord(
        "ab" * 16, "cd" * 8, None, "invoke_agent", 1, 2,
        attributes={"gen_ai.conversation.id": "web:twice", "note": "46-045540435 et bob@x.com.+42867884"},
    )  # fmt: skip
    before = dict(record.attributes)
    ingestor = Ingestor(Store.open(f"sqlite:///{tmp_path / 'twice.db'}"), redactor=R)
    ingestor.ingest([record])
    assert record.attributes == before  # the caller's record is untouched
    ingestor.ingest([record])  # the same batch again, as a retry sends it
    with ingestor.store.engine.connect() as conn:
        [(stored,)] = conn.exec_driver_sql("SELECT attributes FROM spans").all()
    assert R.value(before)["note"] in stored


def test_a_json_document_is_redacted_as_the_characters_its_escapes_stand_for() -> None:
    """A model call's history as a JSON document (`input.value`): a no-break space or an "@" written as
    an escape, and a card written as a JSON number, are what they stand for."""
    document = json.dumps(
        {
            "messages": [
                {"role": "user", "content": "rappelez-moi au 06\u00a012\u00a034\u00a056\u00a078 svp"},
                {"role": "user", "content": "mon e-mail : jean.dupont@free.fr"},
            ],
            "carte": 4111111111111111,
        }
    ).replace("@", "\\u0040")  # json.dumps writes the no-break spaces as \u00a0 already
    assert "\\u00a0" in document and "\\u0040" in document
    out = json.loads(R.text(document))
    said = json.dumps(out, ensure_ascii=False)
    assert "12\u00a034" not in said and "jean.dupont" not in said and "4111111111111111" not in said
    assert out["messages"][0]["content"] == R.text("rappelez-moi au 06\u00a012\u00a034\u00a056\u00a078 svp")
    assert R.text(R.text(document)) == R.text(document)  # redacting twice is redacting once


@pytest.mark.parametrize(
    "clean",
    [
        '{ "a" : [1, 2.50, "x"],\n  "b": null }',
        "[" + ", ".join(['"rien à cacher"'] * 60) + "]",
        "["
        + ", ".join(['{"role": "user", "content": "rien à cacher, \\"vraiment\\""}'] * 200)
        + "]",  # read part by part
    ],
)
def test_a_json_document_with_nothing_to_redact_is_kept_as_written(clean: str) -> None:
    assert R.text(clean) == clean


def test_each_message_of_a_growing_history_is_read_once() -> None:
    """Every model call's document repeats the earlier messages: each is redacted once and remembered
    (the same object comes back), whatever the document around it."""
    fresh = Redactor(b"secret")
    messages = [
        {"role": "user", "content": f"message {n} : écrivez à client{n}@exemple.fr"} for n in range(30)
    ]
    first = json.loads(fresh.text(json.dumps(messages[:10])))
    later = json.loads(fresh.text(json.dumps(messages)))
    assert later[:10] == first and "@exemple.fr" not in json.dumps(later)
    assert fresh.name(messages[3]["content"]) == first[3]["content"]


PIECES = [
    "jean.dupont@free.fr",
    "06\u00a012\u00a034\u00a056\u00a078",
    "06 12\n34 56 78",
    "+33 6 12 34 56 78",
    "(+33) 6 12 34 56 78",
    "4111 1111 1111 1111",
    "FR76 3000 6000 0112 3456 7890 189",
    "jean [at] free [dot] fr",
    "jean arobase free point fr",
    "tel%3A%2B33612345678",
    '"@jean',
    "LL-10563",
    "commande livrée le 12/03",
    "rien à signaler",
    "Où en est ma commande ?",
    "١٢٣٤٥٦٧٨٩٠",
    "０６１２３４５６７８",
]


def walked(value: object, r: Redactor) -> object:
    """A document's redaction string by string, keys too: what the whole-document shortcut must equal."""
    if isinstance(value, str):
        return r.text(value)
    if isinstance(value, dict):
        return {r.text(k): walked(v, r) for k, v in value.items()}
    if isinstance(value, list):
        return [walked(v, r) for v in value]
    if isinstance(value, int) and not isinstance(value, bool) and abs(value) >= 1_000_000:
        done = r.text(str(value))
        return value if done == str(value) else done
    return value


strings = st.lists(st.sampled_from(PIECES) | st.text(max_size=12), max_size=3).map(" ".join)
documents = st.recursive(
    strings | st.integers() | st.none(),
    lambda inner: st.lists(inner, max_size=4) | st.dictionaries(strings, inner, max_size=3),
    max_leaves=8,
).filter(lambda d: isinstance(d, list | dict))


@given(documents, st.booleans(), st.sampled_from([None, 0, 2]))
@example({"content": "appelez le 06123\n45678"}, True, None)
@example({"content": 'il a écrit "@jean" hier'}, True, None)
@example({"a": "jean\u0040free.fr"}, True, None)
@example([123, 456], False, 2)  # digits on two lines, a comma between: no number
@example({"a": ["06 12", 345678]}, False, 1)
@example([-9_223_372_036_854_775_809, "jean.dupont@free.fr"], False, None)  # past 64 bits, kept whole
def test_a_document_read_whole_is_redacted_as_string_by_string(
    document: object, ascii_only: bool, indent: int | None
) -> None:
    """A document none of whose strings holds anything to redact is kept as written without reading each
    string (`redact_forms.clean_document`); the result is always what redacting each string, key and number gives,
    whatever blanks and line breaks its writer put between tokens."""
    fresh = Redactor(b"secret")
    out = fresh.text(json.dumps(document, ensure_ascii=ascii_only, indent=indent))
    assert json.loads(out) == walked(document, Redactor(b"secret"))


@pytest.mark.parametrize("control", ["\t", "\u000b", "\f"])  # what the plain text reading takes as a space
def test_a_control_character_in_a_document_does_not_hide_an_email_written_in_words(control: str) -> None:
    """A short document is first tested whole for anything to read, on orjson's writing of it, where a
    control character is an escape: one between the words of an email must not make it look clean
    (an independent review found a tab and a vertical tab did)."""
    said = f"écrivez à jean at example{control} dot com"
    assert "jean" not in R.text(said)
    document = json.dumps({"role": "user", "content": said})
    assert "jean" not in R.text(document)


def test_a_document_nested_hundreds_deep_is_read_as_text_not_refused() -> None:
    """Past the interpreter's recursion limit a document is not walked: it is read as the text it is,
    by the patterns, and a span holding it is still stored, redacted."""
    fresh = Redactor(b"secret")
    depth = 600
    clean = "[" * depth + '"rien à cacher"' + ", 1" * 1500 + "]" * depth
    assert len(clean) > redact.CLEAN_TESTED and fresh.text(clean) == clean
    phone = "[" * depth + '"rappelez-moi au 06 12 34 56 78"' + "]" * depth
    assert "06 12 34 56 78" not in fresh.text(phone)
    assert "06 12 34 56 78" not in json.dumps(fresh.value({"gen_ai.input.messages": phone}))
