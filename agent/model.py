"""Building the `google-genai` client: the real Gemini API, Vertex AI, or the scripted stand-in.

The agent's code path is the same for all three; only `HttpOptions(base_url=...)` differs.
"""

from __future__ import annotations

import os
from collections.abc import Iterator
from contextlib import contextmanager
from dataclasses import dataclass

import google.auth
import httpx
from google import genai
from google.auth.exceptions import DefaultCredentialsError
from google.genai import types

from filon.agent.scripted import ScriptedModel, ScriptedSettings
from filon.miner.core.messages import Lang, Refusal, Said, SaidError, said

DEFAULT_MODEL = os.environ.get("FILON_MODEL", "gemini-3.5-flash-lite")
SCRIPTED_MODEL = "scripted-lin-et-laine"


class MissingCredentials(SaidError, RuntimeError):
    """No Gemini API key and no Vertex AI settings in the environment."""

    spoken_in: Lang = "en"


def has_gemini_credentials() -> bool:
    if os.environ.get("GEMINI_API_KEY") or os.environ.get("GOOGLE_API_KEY"):
        return True
    return _vertex() and bool(os.environ.get("GOOGLE_CLOUD_PROJECT"))


def _vertex() -> bool:
    return os.environ.get("GOOGLE_GENAI_USE_VERTEXAI", "").lower() in ("1", "true", "yes")


def gemini_client(timeout_ms: int = 60_000, httpx_client: httpx.Client | None = None) -> genai.Client:
    """A client for the real model; raises MissingCredentials with the variables to set."""
    if not has_gemini_credentials():
        raise MissingCredentials(said("err.model.no_credentials"))
    try:
        if _vertex():  # the SDK would look credentials up at the first request: look now, fail clearly
            google.auth.default(scopes=["https://www.googleapis.com/auth/cloud-platform"])
        return genai.Client(http_options=types.HttpOptions(timeout=timeout_ms, httpx_client=httpx_client))
    except DefaultCredentialsError as exc:  # Vertex AI asked for, no Google credentials on this machine
        raise MissingCredentials(said("err.model.no_google_credentials")) from exc


def scripted_client(
    base_url: str, timeout_ms: int = 30_000, httpx_client: httpx.Client | None = None
) -> genai.Client:
    """A client for the scripted model at `base_url`: the same SDK, the same requests, over loopback."""
    return genai.Client(
        api_key="scripted-stand-in",
        http_options=types.HttpOptions(
            base_url=base_url, api_version="v1beta", timeout=timeout_ms, httpx_client=httpx_client
        ),
    )


@dataclass
class Backend:
    """A ready model: the client, the model name, and whether it is the scripted stand-in."""

    client: genai.Client
    model: str
    scripted: bool
    url: str | None = None

    @property
    def banner(self) -> Said:
        """Which model answers, the scripted stand-in said to be one (`banner.*`)."""
        if self.scripted:
            return said("banner.scripted", url=self.url)
        return said("banner.model", model=self.model)


@contextmanager
def open_backend(
    backend: str,
    model: str | None = None,
    model_url: str | None = None,
    settings: ScriptedSettings | None = None,
    timeout_ms: int = 60_000,
    httpx_client: httpx.Client | None = None,
) -> Iterator[Backend]:
    """`gemini` (the default everywhere; never falls back) or `scripted` (in-process unless `model_url`)."""
    if backend == "gemini":
        if model_url:  # silently talking to Gemini while the user meant a local server would mislead
            raise Refusal(said("err.model.url_scripted"))
        yield Backend(gemini_client(timeout_ms, httpx_client), model or DEFAULT_MODEL, scripted=False)
        return
    if backend != "scripted":
        raise Refusal(said("err.model.backend", backend=repr(backend)))
    if model_url:
        yield Backend(
            scripted_client(model_url, timeout_ms, httpx_client), model or SCRIPTED_MODEL, True, model_url
        )
        return
    with ScriptedModel(settings or ScriptedSettings.from_env()) as server:
        yield Backend(
            scripted_client(server.url, timeout_ms, httpx_client), model or SCRIPTED_MODEL, True, server.url
        )
