"""What the stand-in's judge and simulated customer read in a structured request: which response schema
it asks for, its system text, and the JSON value the caller put in the `<donnees>` block of its message.
"""

from __future__ import annotations

import json
import re
from typing import Any

DATA = re.compile(r"<donnees>\s*(.*?)\s*</donnees>", re.S)


def asks_for(body: dict[str, Any], field: str) -> bool:
    """Whether the request's response schema has this property (`score`: the judge)."""
    schema = (body.get("generationConfig") or {}).get("responseSchema") or {}
    return field in (schema.get("properties") or {})


def system_text(body: dict[str, Any]) -> str:
    parts = (body.get("systemInstruction") or {}).get("parts") or []
    return "\n".join(str(p.get("text", "")) for p in parts)


def data(body: dict[str, Any]) -> Any:
    """The JSON value of the message's `<donnees>` block; None when there is none or it does not parse."""
    text = "\n".join(str(p.get("text", "")) for c in body.get("contents") or [] for p in c.get("parts") or [])
    found = DATA.search(text)
    try:
        return json.loads(found.group(1)) if found else None
    except ValueError:
        return None
