"""JSON text for the store: orjson on the hot paths (every span's attributes are encoded once, every
turn's messages decoded once), the standard library for what orjson refuses (integers past 64 bits,
non-string keys, NaN on decoding), so that nothing valid today fails tomorrow."""

from __future__ import annotations

import json
from typing import Any

import orjson

from filon.miner.core.messages import Refusal, said


def dumps(value: Any) -> str:
    """Compact JSON, non-ASCII kept as is."""
    try:
        return orjson.dumps(value).decode()
    except TypeError:  # orjson.JSONEncodeError is a TypeError
        return json.dumps(value, ensure_ascii=False, separators=(",", ":"))


def dumps_bytes(value: Any) -> bytes:
    """`dumps`, as UTF-8 bytes (what pipes and sockets take), without a detour through `str`."""
    try:
        return orjson.dumps(value)
    except TypeError:
        return json.dumps(value, ensure_ascii=False, separators=(",", ":")).encode()


def dumps_sorted(value: Any) -> str:
    """`dumps` with keys sorted: a canonical form, for comparing arguments."""
    try:
        return orjson.dumps(value, option=orjson.OPT_SORT_KEYS).decode()
    except TypeError:
        return json.dumps(value, ensure_ascii=False, sort_keys=True, separators=(",", ":"))


def loads(text: str | bytes) -> Any:
    """Raises ValueError on text that is not JSON, or nested too deep to be read as JSON (it stays text)."""
    try:
        return orjson.loads(text)
    except orjson.JSONDecodeError:
        try:
            return json.loads(text)  # NaN and Infinity, which Python's own encoder writes
        except RecursionError:  # arguments nested 50,000 deep: a sender's text, not a poison
            raise Refusal(said("err.decode.json_too_deep")) from None


def parsed(value: Any) -> Any:
    """A JSON text decoded; anything else, or text that is not JSON, as it is (attributes that other
    stacks write as JSON text or as values)."""
    if type(value) is not str:
        return value
    try:
        return loads(value)
    except ValueError:
        return value
