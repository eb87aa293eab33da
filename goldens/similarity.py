"""Semantic similarity (`proche_de`): the answer's embedding against a reference answer's, by cosine.

Useful for paraphrases a list of words cannot foresee, and blind to negation (« le virement est autorisé »
and « n'est pas autorisé » land close): lint never lets it stand alone, a fact check or a `ne_contient_pas`
must sit beside it. Embeddings come from Gemini through google-genai (`batchEmbedContents`), or from the
scripted stand-in; each text is embedded once per run.
"""

from __future__ import annotations

import math
import threading
from dataclasses import dataclass

from google import genai

from goldens.model_calls import infrastructure

EMBEDDING_MODEL = "gemini-embedding-001"
SCRIPTED_EMBEDDING = "scripted-embedding"


class EmbeddingError(Exception):
    """The embeddings could not be had: an infrastructure error, with a one-line cause in French."""


@dataclass(frozen=True)
class Similarity:
    reference: str
    score: float
    seuil: float

    @property
    def passed(self) -> bool:
        return self.score >= self.seuil


def cosine(a: list[float], b: list[float]) -> float:
    dot = sum(x * y for x, y in zip(a, b, strict=True))
    na, nb = math.sqrt(sum(x * x for x in a)), math.sqrt(sum(y * y for y in b))
    return dot / (na * nb) if na and nb else 0.0


def estimate_tokens(text: str) -> int:
    """Embedding replies carry no token count on the Gemini API: about four characters a token."""
    return max(1, math.ceil(len(text) / 4))


class Embedder:
    """Texts to vectors, remembered for the run (a reference is embedded once, whatever the attempts)."""

    def __init__(self, client: genai.Client, model: str, stand_in: bool) -> None:
        self.client = client
        self.model = model
        self.stand_in = stand_in
        self.tokens = 0
        self.known: dict[str, list[float]] = {}
        self._lock = threading.Lock()

    def embed(self, texts: list[str]) -> list[list[float]]:
        with self._lock:
            missing = [t for t in dict.fromkeys(texts) if t not in self.known]
        if missing:
            with infrastructure("embeddings", EmbeddingError):
                response = self.client.models.embed_content(model=self.model, contents=missing)
            vectors = [list(e.values or []) for e in response.embeddings or []]
            if len(vectors) != len(missing) or any(not v for v in vectors):
                raise EmbeddingError(f"embeddings : {len(vectors)} vecteurs pour {len(missing)} textes")
            with self._lock:
                self.known.update(zip(missing, vectors, strict=True))
                self.tokens += sum(estimate_tokens(t) for t in missing)
        with self._lock:
            return [self.known[t] for t in texts]

    def similarity(self, reference: str, answer: str, seuil: float) -> Similarity:
        ref, got = self.embed([reference, answer])
        return Similarity(reference, round(cosine(ref, got), 4), seuil)
