"""Semantic similarity (`proche_de`): the answer's embedding against a reference answer's, by cosine.

Useful for paraphrases a list of words cannot foresee, and blind to negation (« le virement est autorisé »
and « n'est pas autorisé » land close): lint never lets it stand alone, a fact check or a `ne_contient_pas`
must sit beside it. Embeddings come from Gemini through google-genai (`batchEmbedContents`), or from the
scripted stand-in; each text is embedded once per run.

The answer is read whole and by passages: a model that says the reference and then more (a greeting, a
second help article, an offer to help further) is not far from it, yet the whole answer's embedding
drifts with each thing added. The score is the closest of the whole answer and each run of as many
consecutive sentences as the reference has: an answer with a passage that says the reference is scored
on it, whatever surrounds it. What an answer gets wrong beside it is the fact checks' and
`ne_contient_pas`' to catch, as before. Each passage is one more text to embed (a request per 100).
"""

from __future__ import annotations

import math
import re
import threading
from dataclasses import dataclass

from google import genai

from filon.goldens.models.model_calls import infrastructure
from filon.miner.core.messages import SaidError, said

EMBEDDING_MODEL = "gemini-embedding-001"
BATCH = 100  # texts per `batchEmbedContents` request: Gemini's limit
SCRIPTED_EMBEDDING = "scripted-embedding"


class EmbeddingError(SaidError):
    """The embeddings could not be had: an infrastructure error, with a one-line cause."""


@dataclass(frozen=True)
class Similarity:
    reference: str
    score: float
    threshold: float

    @property
    def passed(self) -> bool:
        return self.score >= self.threshold


def cosine(a: list[float], b: list[float]) -> float:
    dot = sum(x * y for x, y in zip(a, b, strict=True))
    na, nb = math.sqrt(sum(x * x for x in a)), math.sqrt(sum(y * y for y in b))
    return dot / (na * nb) if na and nb else 0.0


SENTENCE_END = re.compile(r"(?<=[.!?…])\s+|\s*\n\s*")


def sentences(text: str) -> list[str]:
    """The text's sentences: split after ".", "!", "?" or "…" followed by a space, and at line breaks."""
    return [s for s in SENTENCE_END.split(text.strip()) if s]


def passages(answer: str, width: int) -> list[str]:
    """The runs of `width` consecutive sentences of the answer (none when it has no more than that: the
    whole answer is then the only passage)."""
    said = sentences(answer)
    width = max(1, width)
    if len(said) <= width:
        return []
    return [" ".join(said[i : i + width]) for i in range(len(said) - width + 1)]


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
        self._pending: dict[str, threading.Event] = {}  # texts being embedded by another attempt
        self._lock = threading.Lock()

    def embed(self, texts: list[str]) -> tuple[list[list[float]], int]:
        """The vectors of `texts`, and the tokens this call paid for: a text another attempt is embedding
        at the same moment is waited for, not embedded twice."""
        with self._lock:
            unique = list(dict.fromkeys(texts))
            missing = [t for t in unique if t not in self.known and t not in self._pending]
            waiting = [self._pending[t] for t in unique if t in self._pending]
            for text in missing:
                self._pending[text] = threading.Event()
        tokens = 0
        try:
            if missing:
                vectors = []
                for start in range(0, len(missing), BATCH):  # the API takes 100 texts a request at most
                    with infrastructure("embeddings", EmbeddingError):
                        part = missing[start : start + BATCH]
                        response = self.client.models.embed_content(model=self.model, contents=part)
                    vectors += [list(e.values or []) for e in response.embeddings or []]
                if len(vectors) != len(missing) or any(not v for v in vectors):
                    raise EmbeddingError(
                        said("model.embeddings_count", vectors=len(vectors), texts=len(missing))
                    )
                tokens = sum(estimate_tokens(t) for t in missing)
                with self._lock:
                    self.known.update(zip(missing, vectors, strict=True))
                    self.tokens += tokens
        finally:
            with self._lock:
                for text in missing:
                    self._pending.pop(text).set()
        for event in waiting:
            event.wait()
        with self._lock:
            if any(t not in self.known for t in texts):  # the other attempt's call failed
                raise EmbeddingError(said("model.embeddings_concurrent"))
            return [self.known[t] for t in texts], tokens

    def similarity(self, reference: str, answer: str, threshold: float) -> tuple[Similarity, int]:
        """The answer's similarity to the reference: the closest of the whole answer and its passages as
        long as the reference (`passages`); and the embedding tokens this call paid for."""
        texts = [answer, *passages(answer, len(sentences(reference)))]
        (ref, *got), tokens = self.embed([reference, *texts])
        return Similarity(reference, round(max(cosine(ref, v) for v in got), 4), threshold), tokens
