"""What every model call of the gate shares: text passed as data in a marked block (never as instructions);
one structured call (JSON against a schema, temperature 0) for the judge and the simulated customer; and
one mapping of failures to infrastructure causes (the client's retries have run by then), used by those
calls and by the runner, so that a failed call is never a score, a vector, a message or a quality failure.
"""

from __future__ import annotations

import json
from collections.abc import Iterator
from contextlib import contextmanager
from dataclasses import dataclass
from typing import Any

import httpx
from google import genai
from google.genai import errors, types

from filon.goldens.models.retry import CircuitOpen
from filon.miner.core.messages import Said, SaidError, said


def data_block(intro: str, value: Any) -> str:
    """`value` as JSON inside <donnees>…</donnees>; `<` and `>` escaped, so no text closes the block."""
    text = json.dumps(value, ensure_ascii=False, indent=1).replace("<", "\\u003c").replace(">", "\\u003e")
    return f"{intro}\n<donnees>\n{text}\n</donnees>"


def cause(exc: BaseException, *, any_api_error: bool = False) -> Said | None:
    """The infrastructure cause of a failed call ("429 RESOURCE_EXHAUSTED", « délai dépassé »), or None
    when `exc` is not infrastructure. An API error counts when it is a quota (429) or the server's (5xx),
    or, with `any_api_error`, whatever its code (a judge's 400 is still no score)."""
    if isinstance(exc, CircuitOpen):
        return said("infra.circuit_open")
    if isinstance(exc, errors.APIError) and (any_api_error or exc.code == 429 or exc.code >= 500):
        return said("text.line", line=f"{exc.code} {exc.status or ''}".strip())
    if isinstance(exc, httpx.TimeoutException):
        return said("infra.timeout")
    if isinstance(exc, httpx.TransportError):
        return said("infra.network", kind=type(exc).__name__)
    return None


ROLES = {"juge": "role.judge", "embeddings": "role.embeddings", "client simulé": "role.simulator"}


@contextmanager
def infrastructure(role: str, error: type[SaidError]) -> Iterator[None]:
    """Raise `error` with a one-line cause (« juge : 429 RESOURCE_EXHAUSTED ») for a failed call."""
    try:
        yield
    except Exception as exc:
        found = cause(exc, any_api_error=True)
        if found is None:
            raise
        who = said(ROLES[role]) if role in ROLES else role
        raise error(said("infra.role", role=who, cause=found)) from exc


def structured_config(system: str, schema: types.Schema) -> types.GenerateContentConfig:
    """A call that must answer JSON of `schema`, deterministic (temperature 0). No max_output_tokens: a
    thinking model's thoughts count against it."""
    return types.GenerateContentConfig(
        system_instruction=system,
        temperature=0.0,
        response_mime_type="application/json",
        response_schema=schema,
    )


@dataclass(frozen=True)
class Reply:
    text: str | None
    input_tokens: int
    output_tokens: int


def structured_call(
    client: genai.Client,
    model: str,
    message: str,
    config: types.GenerateContentConfig,
    role: str,
    error: type[SaidError],
) -> Reply:
    """One structured call: its text (parsed by the caller) and its tokens; a failure is `error`."""
    with infrastructure(role, error):
        response = client.models.generate_content(model=model, contents=message, config=config)
    usage = response.usage_metadata
    return Reply(response.text, (usage.prompt_token_count or 0) if usage else 0, output_tokens(usage))


def output_tokens(usage: types.GenerateContentResponseUsageMetadata | None) -> int:
    """The tokens billed as output: the reply's and, on a thinking model, its thoughts'."""
    if usage is None:
        return 0
    return (usage.candidates_token_count or 0) + (usage.thoughts_token_count or 0)
