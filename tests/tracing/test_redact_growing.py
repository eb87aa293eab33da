"""A history read by its new messages is redacted as if read whole (`tracing.redact_growing`).

Each comparison is against a fresh `Redactor`, which remembers nothing and so reads every document whole.
"""

from __future__ import annotations

import json
from types import SimpleNamespace
from typing import Any

import orjson
import pytest
from hypothesis import given
from hypothesis import strategies as st

from filon.tracing import redact, redact_growing
from filon.tracing.redact import Redactor
from filon.tracing.redact_growing import KEPT, KEPT_CHARS, LISTS, Growing

SECRET = b"growing"
POLICY = "Politique de la boutique : " + "répondez poliment et vérifiez la commande. " * 110  # past 4 KB
PIECES = [
    "bonjour",
    "ma commande LL-10574",
    "écrivez à jean.dupont@exemple.fr",
    "jean at exemple dot fr",
    "mon numéro 06 12 34 56 78",
    "carte 4111 1111 1111 1111",
    "IBAN FR76 3000 6000 0112 3456 7890 189",
    'un "guillemet", une virgule ] et un crochet',
    "\u00a0\u2028",
]
MESSAGES = st.builds(
    lambda role, words, call: {"role": role, "content": " ".join(words), **call},
    st.sampled_from(["user", "assistant", "tool"]),
    st.lists(st.sampled_from(PIECES), min_size=1, max_size=3),
    st.sampled_from([{}, {"tool_calls": [{"name": "consulter", "arguments": {"email": "a.b@exemple.fr"}}]}]),
)
STYLES = [
    {},
    {"separators": (",", ":")},
    {"indent": 2},
    {"ensure_ascii": False},
]


def written(messages: list[Any], shape: str, style: dict[str, Any]) -> str:
    system = [{"role": "system", "content": POLICY}]
    if shape == "list":
        return json.dumps(system + messages, **style)
    document = {"model": "gpt-4o", "messages": system + messages, "tools": [{"name": "consulter"}]}
    return json.dumps(document, **style)


@given(
    st.lists(st.lists(MESSAGES, min_size=1, max_size=3), min_size=2, max_size=5),
    st.sampled_from(["list", "object"]),
    st.sampled_from(STYLES),
)
def test_a_growing_history_is_redacted_at_each_call_as_read_whole(
    calls: list[list[Any]], shape: str, style: dict[str, Any]
) -> None:
    redactor, history = Redactor(SECRET), []
    for added in calls:
        history += added
        document = written(history, shape, style)
        assert redactor.text(document) == Redactor(SECRET).text(document)


def test_the_next_call_is_read_by_its_new_messages_only(monkeypatch: pytest.MonkeyPatch) -> None:
    read: list[int] = []

    def loads(text: str | bytes) -> Any:
        read.append(len(text))
        return orjson.loads(text)

    monkeypatch.setattr(redact, "orjson", SimpleNamespace(**{**vars(orjson), "loads": loads}))
    redactor = Redactor(SECRET)
    first = [{"role": "user", "content": "écrivez à jean.dupont@exemple.fr"}]
    redactor.text(written(first, "object", {}))
    assert max(read) > 4096  # read whole
    read.clear()
    document = written(
        [*first, {"role": "assistant", "content": "c'est noté, jean.dupont@exemple.fr"}], "object", {}
    )
    done = redactor.text(document)
    assert read == [] and "jean.dupont" not in done  # no whole reading by the redactor
    assert done == Redactor(SECRET).text(document)
    grown = json.loads(document)  # then the list after it grows: its end moved with the first one's
    grown["tools"].append({"name": "rembourser", "contact": "jd@ex.com"})
    document = json.dumps(grown)
    read.clear()
    done = redactor.text(document)
    assert read == [] and "jd@ex.com" not in done and done == Redactor(SECRET).text(document)


OLDER = {"model": "gpt-4o", "messages": [{"role": "system", "content": POLICY}], "tools": ["consulter"]}


@pytest.mark.parametrize(
    "middle",
    [
        '], "contact": "jean.dupont@exemple.fr", "autre": [1',  # closes the list, opens members
        ', "x"], "autre": ["jean.dupont@exemple.fr"',  # an item, then members
        ', {"a": 1}, "jean.dupont@exemple.fr"], "b": [',  # items and a member
        ' ,"jean.dupont@exemple.fr" ',  # white space both sides
    ],
)
def test_text_spliced_after_a_known_list_is_read_by_what_it_is(middle: str) -> None:
    older = json.dumps(OLDER)
    end = older.index("}], ") + 1  # the system message's end
    document = older[:end] + middle + older[end:]
    json.loads(document)  # a valid document: the text alone says whether it is one list grown
    redactor = Redactor(SECRET)
    redactor.text(older)
    done = redactor.text(document)
    assert "jean.dupont" not in done and done == Redactor(SECRET).text(document)


@pytest.mark.parametrize(
    ("old", "new"),
    [
        ('"consulter"', '"jd@ex.com"'),  # the text after the list, as long as it was
        ("Politique", "jd@ex.com"),  # the text before the list's last item, as long as it was
    ],
)
def test_a_grown_document_whose_other_text_changed_as_long_is_read_whole(old: str, new: str) -> None:
    older = json.dumps(OLDER)
    redactor = Redactor(SECRET)
    redactor.text(older)
    end = older.index("}], ") + 1
    document = (older[:end] + ', "x"' + older[end:]).replace(old, new)
    done = redactor.text(document)
    assert "jd@ex.com" not in done and done == Redactor(SECRET).text(document)


@pytest.mark.parametrize("middle", [', "x', ' "jd@ex.com"', ", 1 22", ', "jd@ex.com" x"y"', ", jd@ex.com"])
def test_text_spliced_that_is_no_longer_json_is_read_as_text(middle: str) -> None:
    older = json.dumps(OLDER)
    end = older.index("}], ") + 1
    document = older[:end] + middle + older[end:]
    with pytest.raises(ValueError):
        json.loads(document)
    redactor = Redactor(SECRET)
    redactor.text(older)
    assert redactor.text(document) == Redactor(SECRET).text(document)


def test_a_history_cut_short_or_rewritten_is_read_whole() -> None:
    redactor = Redactor(SECRET)
    messages = [{"role": "user", "content": f"message {n} de jean.dupont@exemple.fr"} for n in range(4)]
    for history in (messages, messages[:2], [*messages[:1], {"role": "user", "content": "06 12 34 56 78"}]):
        document = written(history, "list", {})
        assert redactor.text(document) == Redactor(SECRET).text(document)


@pytest.mark.parametrize("size", [10, 100_000])  # bound by their count, by their characters
def test_the_documents_kept_stay_within_their_bounds(size: int) -> None:
    growing = Growing(lambda item: item)
    for n in range(KEPT + 20):
        text = json.dumps([f"{n}", "x" * size])
        growing.remember(text, json.loads(text), json.loads(text), text)
    records, chars = growing._kept
    assert len(records) <= KEPT and chars == sum(len(r.text) for r in records) <= KEPT_CHARS
    growing = Growing(lambda item: item)
    for n in range(KEPT + 20):  # a redacted text that differs is counted too
        text = json.dumps([f"{n}", "x" * size])
        growing.remember(text, json.loads(text), json.loads(text), text.replace("x", "y"))
    records, chars = growing._kept
    assert chars == 2 * sum(len(r.text) for r in records) <= KEPT_CHARS
    assert records[-1].text.startswith(f'["{KEPT + 19}"') and len(records) > 1


@pytest.mark.parametrize(
    "shape",
    [
        '{{"jean.dupont@exemple.fr": [{policy}{items}], "b": 1}}',  # a key redacted
        '{{"m": [0], "m": [{policy}{items}]}}',  # a key written twice: orjson keeps the last
        '{{"a": {{"m": [{policy}{items}]}}, "b": [{policy}{items}]}}',  # a list deeper, one not
    ],
)
def test_objects_of_other_shapes_grow_as_read_whole(shape: str) -> None:
    redactor = Redactor(SECRET)
    for n in range(1, 5):
        items = "".join(f', "{m}: 06 12 34 56 7{m}"' for m in range(n))
        document = shape.format(policy=json.dumps(POLICY), items=items)
        assert redactor.text(document) == Redactor(SECRET).text(document)


def test_an_attribute_read_again_at_the_same_key_follows_its_value() -> None:
    """Span attributes are also kept by key (`BY_KEY_LONGEST`): a flattened history's message at the same
    key on the next span; another value at that key is read as itself."""
    redactor = Redactor(SECRET)
    texts = [POLICY[:600] + f" écrivez à {who}@exemple.fr" for who in ("jean", "marie", "jean")]
    for n, text in enumerate([*texts, "".join(texts[0])]):  # the last: equal, another object
        attributes = {"llm.input_messages.1.message.content": text, "n": n}
        done = redactor.value(attributes)
        assert done == Redactor(SECRET).value(attributes) and "@exemple.fr" not in str(done)


def test_a_document_of_many_lists_is_not_remembered() -> None:
    """Each list of each remembered document is compared with every new document: one of thousands of
    lists (an independent review's) made a read that matched nothing take seconds."""
    growing = Growing(lambda item: item)
    for count in (LISTS, LISTS + 1):
        text = json.dumps({f"k{n}": [n] for n in range(count)} | {"policy": POLICY})
        growing.remember(text, json.loads(text), json.loads(text), text)
    assert [len(r.lists) for r in growing._kept[0]] == [LISTS]


def test_real_histories_are_redacted_by_a_long_lived_redactor_as_by_a_fresh_one() -> None:
    """GPT-4o's conversations through OpenInference (tau-bench tasks 0-2): every span's attributes, read
    by one redactor that remembers the earlier spans' documents, are what a redactor new for each span
    writes."""
    from filon.tracing.files import read_otlp_file
    from tests.corpus import tau

    redactor = Redactor(SECRET)
    for path in tau.payloads()[:3]:
        for record in read_otlp_file(path):
            assert redactor.value(record.attributes) == Redactor(SECRET).value(record.attributes)


@pytest.mark.parametrize("depth", range(250, 257))
@pytest.mark.parametrize("shape", ["list", "object"])
def test_an_item_written_into_the_older_text_is_written_as_the_whole_would_be(shape: str, depth: int) -> None:
    """A grown history whose older redacted text changed takes the new items written into it, not the whole
    written again: near orjson's depth limit (255), where the whole falls back to the standard library's
    writing (`1e-07`, not orjson's `1e-7`), each item is written at the depth the whole gives it."""
    nested: Any = [1e-7, "écrivez à jean.dupont@exemple.fr"]
    for _ in range(depth - (2 if shape == "list" else 3)):
        nested = [nested]
    first = [{"role": "user", "content": "écrivez à jean.dupont@exemple.fr"}]
    redactor = Redactor(SECRET)
    for messages in (
        first,
        [*first, {"role": "tool", "content": "vu"}],
        [*first, {"role": "tool", "content": "vu"}, nested],
    ):
        document = written(messages, shape, {})
        assert redactor.text(document) == Redactor(SECRET).text(document)


def test_a_list_read_before_is_found_again_by_its_text(monkeypatch: pytest.MonkeyPatch) -> None:
    """Each conversation's first call writes the same tool definitions (`_known_end`): the list is found by
    its text, not scanned again; a list that begins the same and goes on otherwise is scanned as itself.
    Either way each conversation's next calls grow from the right places, the tools' list's included,
    and are not read whole."""
    read: list[int] = []

    def loads(text: str | bytes) -> Any:
        read.append(len(text))
        return orjson.loads(text)

    monkeypatch.setattr(redact, "orjson", SimpleNamespace(**{**vars(orjson), "loads": loads}))
    scanned: list[int] = []
    list_end = redact_growing._list_end
    monkeypatch.setattr(
        redact_growing, "_list_end", lambda text, at: scanned.append(at) or list_end(text, at)
    )
    tools = [{"name": "consulter", "description": "commande LL-10574, 06 12 34 56 78"}]
    longer = [*tools, {"name": "rembourser", "contact": "jd@ex.com"}]
    redactor, ours = Redactor(SECRET), 0
    for n, listed in enumerate([tools, tools, longer, tools, longer]):
        history = [{"role": "user", "content": f"commande {n} : écrivez à jean.dupont@exemple.fr"}]
        document = {"messages": [{"role": "system", "content": POLICY}, *history], "tools": list(listed)}
        for call in range(4):
            text = json.dumps(document)
            fresh = Redactor(SECRET).text(text)
            read.clear()
            scanned.clear()
            assert redactor.text(text) == fresh
            ours += len(scanned)
            assert call == 0 or max(read, default=0) < 4096  # grown, not read whole
            added = {"role": "assistant", "content": f"appel {call}, mon numéro 06 12 34 56 7{call}"}
            document["messages" if call % 2 else "tools"].append(added)
    assert len(redactor._growing._known) == 2
    assert ours == 5 + 2  # each first call's messages; the two lists of tools, once each
