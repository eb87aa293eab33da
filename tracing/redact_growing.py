"""Documents that grow: a model call's history, sent whole again on the next call with a message or two more.

An agent exporting through OpenInference or the GenAI conventions writes the whole history on every model
call (`input.value`, `gen_ai.input.messages`): a conversation of twelve calls sends its first message twelve
times. Redaction read each such document whole (orjson, then every list item written again as its cache
key), which was most of the large spans' acknowledgement. This module remembers, for a few recent
documents, where the last item of each of their top-level lists ends, and reads a new document as an older
one plus items appended to one of those lists: only the new items are parsed and redacted.

Why the result is the one a whole reading gives (privacy rests on it):
- the new document's text up to the older one's last item (`head`) is the older one's, character for
  character, so a parser reading it from the start is in the same state there: inside that list, just
  after a value, with the same lists and objects open around it, and every value before it the same;
- from there, only `, value` pairs and white space are read, and the last one ends where the rest of the
  text begins; the rest (`tail`) is, character for character, what followed the list's last item in the
  older document, read from the same state: the same values, the same end;
- so the document's values are the older one's with the new items added to that list, and redaction reads
  each list item and each object member on its own (`Redactor._parts`): the older one's redacted values
  with the new items' added are the new document's. Anything else (no older document fits, an item that
  does not parse, a number past 64 bits) is read whole, as before;
- the redacted text, when redaction changed the older document, is orjson's writing of its values, which
  writes a list as its items joined by commas, each as it writes it alone at the same depth: the older
  redacted text with the new items written after that list's last item is the whole's writing, not
  written whole again (`_written`; where orjson cannot write an item, the whole is written by `dumps`).
"""

from __future__ import annotations

import json
import re
import sys
from _json import make_scanner, scanstring
from collections.abc import Callable
from typing import Any

import orjson

from filon.miner.core.jsontext import dumps

LISTS = 8  # a document with more top-level lists is not remembered: each is compared on every new document
KEPT, KEPT_CHARS = 64, 4_000_000  # documents remembered, the most recent, and their characters at most
# (each document's text and its redacted text when it differs): a
# live conversation's history and an agent's tool definitions each take one
WINDOW = 32  # characters before a list's last end compared first: another conversation's seldom match
# lists whose end is found again by their text (`_known_end`): first-characters keys, and the longest list
# kept (four texts a key at most: 8 M characters in all at worst)
KNOWN, KNOWN_CHARS = 32, 65_536
_SPACE = re.compile(r"[ \t\n\r]*")
_scan = make_scanner(json.JSONDecoder())  # type: ignore[arg-type]  # C: a value's end (orjson gives none)


def _skip(text: str, at: int, stop: int = sys.maxsize) -> int:
    """Where the white space at `at` in `text` (before `stop`) ends."""
    return _SPACE.match(text, at, stop).end()  # type: ignore[union-attr]


class _Record:
    """One document read: its text, its redacted values whole (`done`, a list or a dict), its redacted text
    (`out`: `text` itself when nothing changed), and its top-level lists (`lists`: the key of `done` each is
    under, None for the document itself, and where its last item ends in `text`). `out_ends`: where each
    list's last item ends in `out`, when `out` is orjson's writing of `done` (`_compact_ends`)."""

    __slots__ = ("changed", "done", "lists", "out", "out_ends", "size", "text")
    lists: tuple[tuple[str | None, int, str], ...]

    def __init__(
        self,
        text: str,
        done: Any,
        out: str,
        lists: tuple[tuple[str | None, int], ...],
        out_ends: tuple[int, ...] | None = None,
    ) -> None:
        self.text, self.done, self.out, self.changed = text, done, out, out is not text
        self.out_ends = out_ends if self.changed else None
        self.size = len(text) + (len(out) if self.changed else 0)  # what `KEPT_CHARS` counts
        # with the characters before each list's end: compared first, in place (`startswith`), no copy
        self.lists = tuple((key, end, text[max(0, end - WINDOW) : end]) for key, end in lists)


def _list_end(text: str, start: int) -> tuple[int, int] | None:
    """The list at `start`: where its last item ends and where the list ends; None when empty."""
    end, last = start + 1, -1
    while True:
        end = _skip(text, end)
        if text.startswith("]", end):
            return None if last < 0 else (last, end + 1)
        if last >= 0:
            if not text.startswith(",", end):
                raise ValueError
            end = _skip(text, end + 1)
        last = end = _scan(text, end)[1]


def _known_end(text: str, start: int, known: dict[str, list[tuple[str, int]]]) -> tuple[int, int] | None:
    """`_list_end`, for a list whose text was read before (an agent's tool definitions, the same in each
    conversation's first call) found by comparing texts: an array read from its "[" ends at its closing
    bracket whatever follows, so the same text is the same list, its last item ending at the same place
    (and no array's text begins another's). `known`: such texts by their first characters (a few for
    each: lists of tools that differ by their last ones), each with that place."""
    key = text[start : start + WINDOW]
    same = known.get(key, [])
    for listed, last in same:
        if text.startswith(listed, start):
            return start + last, start + len(listed)
    ends = _list_end(text, start)
    if ends is not None and ends[1] - start <= KNOWN_CHARS:
        if len(known) >= KNOWN:
            known.clear()
        known[key] = [(text[start : ends[1]], ends[0] - start), *same[:3]]
    return ends


def _lists(
    text: str, done: Any, parsed: Any, known: dict[str, list[tuple[str, int]]]
) -> tuple[tuple[str | None, int], ...]:
    """Where the last item of each non-empty top-level list of `text` ends (the document's own, or its
    object's members'), keyed as in `done`; () where the shape is not one of these."""
    if type(parsed) is list:
        close = len(text.rstrip(" \t\n\r")) - 1  # a valid array's last character is its closing bracket
        return ((None, len(text[:close].rstrip(" \t\n\r"))),) if parsed else ()
    found: list[tuple[str | None, int]] = []
    keys = list(done)
    end, index = _skip(text, 1), 0
    while not text.startswith("}", end):
        if index:
            end = _skip(text, end + 1)  # past the comma
        _, end = scanstring(text, end + 1)  # C: the key and where it ends
        end = _skip(text, _skip(text, end) + 1)
        if text.startswith("[", end) and (ends := _known_end(text, end, known)) is not None:
            found.append((keys[index], ends[0]))
            if len(found) > LISTS:
                return ()
            end = ends[1]
        else:
            end = _scan(text, end)[1]
        end, index = _skip(text, end), index + 1
    return tuple(found) if index == len(keys) == len(parsed) else ()  # a key written twice: not read so


def _compact_ends(out: str, done: Any, keys: tuple[str | None, ...]) -> tuple[int, ...] | None:
    """Where the last item of each list of `keys` (None: the document itself) ends in `out`, when `out`
    is orjson's compact writing of `done`; None when it is not (the standard library's, for a number past
    64 bits). orjson writes an object as its members joined by commas (`"key":value`), each as alone."""
    try:
        if orjson.dumps(done).decode() != out:
            return None
        if type(done) is list:
            return (len(out) - 1,)
        ends: dict[str, int] = {}
        at = 1
        for key, value in done.items():
            at += len(orjson.dumps(key).decode()) + 1
            size = len(orjson.dumps(value).decode())
            if type(value) is list:
                ends[key] = at + size - 1
            at += size + 1
        return tuple(ends[k] for k in keys)  # type: ignore[index]
    except (TypeError, KeyError):
        return None


def _written(record: _Record, index: int, done: list[Any], top: bool) -> tuple[str, tuple[int, ...]] | None:
    """`record.out` with the new items `done` written at the end of its list `index`, as orjson writes
    the whole (items joined by commas, each at the depth the whole gives it: within one list, or two for
    a member's); None when orjson cannot write one of them (the whole is then written by `dumps`)."""
    ends = record.out_ends
    if ends is None:
        return None
    try:
        if top:
            pieces = "".join("," + orjson.dumps([d]).decode()[1:-1] for d in done)
        else:
            pieces = "".join("," + orjson.dumps([[d]]).decode()[2:-2] for d in done)
    except TypeError:
        return None
    at, grow = ends[index], len(pieces)
    out = record.out[:at] + pieces + record.out[at:]
    return out, tuple(e + grow if i == index or e > at else e for i, e in enumerate(ends))


def _appended(text: str, start: int, stop: int) -> list[Any] | None:
    """The items of `text[start:stop]` read as `, value` pairs (white space between), each parsed by
    orjson as the whole document would have been; None if it is not exactly that. Read in one parse, as
    an array: `[` and the text after the first comma and `]` are one JSON array exactly when that text is
    values separated by commas, the array's brackets its own (a bracket of the text closing it early
    leaves text after it, which is not JSON)."""
    at = _skip(text, start, stop)
    if not text.startswith(",", at, stop):
        return None
    try:
        items = orjson.loads("[" + text[at + 1 : stop] + "]")
    except orjson.JSONDecodeError:  # not values and commas; or nested past orjson's depth: read whole
        return None
    return items or None


class Growing:
    """The recent documents of one `Redactor`, whose `item` reads a list's item (as `Redactor._parts`).
    `read(text)`: the redacted text of `text` when it is a remembered document, or one with items
    appended, else None. `remember(...)`: a document read whole, for the next one."""

    def __init__(self, item: Callable[[Any], Any]) -> None:
        self._item = item
        self._kept: tuple[tuple[_Record, ...], int] = ((), 0)  # and their texts' characters: replaced
        # whole, so that threads read the two together without a lock
        self._known: dict[str, list[tuple[str, int]]] = {}

    def read(self, text: str) -> str | None:
        for record in reversed(self._kept[0]):
            older = record.text
            if len(text) <= len(older):
                if len(text) == len(older) and text == older:  # the same history on the next span
                    return record.out
                continue
            for index, (_, end, window) in enumerate(record.lists):
                stop = len(text) - (len(older) - end)
                if (
                    not text.startswith(window, end - len(window))
                    or not text.endswith(older[end:])
                    or not text.startswith(older[:end])
                    or (new := _appended(text, end, stop)) is None
                ):
                    continue
                return self._grown(text, record, index, stop, new)
        return None

    def _grown(self, text: str, record: _Record, index: int, stop: int, new: list[Any]) -> str | None:
        try:
            done = [self._item(v) for v in new]
        except Exception:  # a number past 64 bits, nested too deep: read whole, as any other document
            return None
        key, end, _ = record.lists[index]
        if key is None:
            whole: Any = record.done + done
        else:
            whole = dict(record.done)
            whole[key] = whole[key] + done
        shift = stop - end
        last = end + len(text[end:stop].rstrip(" \t\n\r"))  # the last new item's end
        lists = tuple((k, last if k == key else e + shift if e > end else e) for k, e, _ in record.lists)
        if not record.changed and done == new:
            out, out_ends = text, None
        elif (written := _written(record, index, done, key is None)) is not None:
            out, out_ends = written  # the older redacted text with the new items: not written whole again
        else:
            out = dumps(whole)
            out_ends = _compact_ends(out, whole, tuple(k for k, _, _ in record.lists))
        self._keep(_Record(text, whole, out, lists, out_ends))
        return out

    def remember(self, text: str, parsed: Any, done: Any, out: str) -> None:
        """`text`, read whole (`parsed`) and redacted (`done`, written `out`), for the documents that may
        follow it."""
        if len(text) > KEPT_CHARS // 4:
            return
        try:
            lists = _lists(text, done, parsed, self._known)
        except (ValueError, StopIteration, RecursionError, IndexError):
            return
        if lists:
            ends = None if out is text else _compact_ends(out, done, tuple(k for k, _ in lists))
            self._keep(_Record(text, done, out, lists, ends))

    def _keep(self, record: _Record) -> None:
        records, chars = self._kept
        records, chars = (*records, record), chars + record.size
        first = 0
        while len(records) - first > KEPT or chars > KEPT_CHARS:
            chars -= records[first].size
            first += 1
        self._kept = (records[first:], chars)  # two threads at once: one of their records lost, no more
