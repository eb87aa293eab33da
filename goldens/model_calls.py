"""What the judge, the embeddings and the simulated customer share when they call a model: text passed as
data in a marked block (never as instructions), and failed calls turned into one-line infrastructure
errors (the client's retries have run by then), never a score, a vector or a message.
"""

from __future__ import annotations

import json
from collections.abc import Iterator
from contextlib import contextmanager
from typing import Any

import httpx
from google.genai import errors


def data_block(intro: str, value: Any) -> str:
    """`value` as JSON inside <donnees>…</donnees>; `<` and `>` escaped, so no text closes the block."""
    text = json.dumps(value, ensure_ascii=False, indent=1).replace("<", "\\u003c").replace(">", "\\u003e")
    return f"{intro}\n<donnees>\n{text}\n</donnees>"


@contextmanager
def infrastructure(role: str, error: type[Exception]) -> Iterator[None]:
    """Raise `error` with a one-line cause in French ("juge : 429 RESOURCE_EXHAUSTED") for a failed call."""
    try:
        yield
    except errors.APIError as exc:
        raise error(f"{role} : {exc.code} {exc.status or ''}".strip()) from exc
    except httpx.TimeoutException as exc:
        raise error(f"{role} : délai dépassé") from exc
    except httpx.TransportError as exc:
        raise error(f"{role} : réseau : {type(exc).__name__}") from exc
