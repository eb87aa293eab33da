"""The stand-in for any agent's tools: the reference agent's five tools found among the declarations a
request carries, by their names, descriptions and parameters, so that an agent whose tools are its own
(`lookup_order`, `track_parcel`, `transfer_to_human`) can be tried offline.

The brain thinks in the reference vocabulary (`consulter_commande`…); a request's declarations are
matched to it once (`aliases`), the brain's calls are written back in the agent's own names and
parameters (`call_for`), and the agent's results are read under the reference names (`reference_name`).
A declaration that matches nothing is never called. Nothing here knows a particular agent.
"""

from __future__ import annotations

import re
from collections.abc import Mapping
from dataclasses import dataclass, field
from typing import Any

# what each reference tool is about, in the words agents use for it (French and English), and its
# arguments' meanings
HINTS: dict[str, tuple[str, ...]] = {
    "rechercher_aide": (
        "faq",
        "help",
        "aide",
        "search",
        "knowledge",
        "policy",
        "docs",
        "question",
        "cgv",
        "article",
    ),
    "consulter_commande": ("order", "commande", "status", "statut", "lookup", "consulter", "get_order"),
    "suivre_colis": ("track", "parcel", "colis", "shipment", "suivi", "suivre", "delivery", "carrier"),
    "demander_retour": ("return", "retour", "refund", "rembours", "rma"),
    "transferer_a_un_conseiller": (
        "human",
        "conseiller",
        "escalat",
        "handoff",
        "transfer",
        "person",
        "agent_humain",
    ),
}
ARGUMENTS: dict[str, tuple[str, ...]] = {
    "numero": ("order", "numero", "number", "id", "commande", "reference"),
    "question": ("question", "query", "q", "text", "search", "topic"),
    "motif": ("reason", "motif", "summary", "message", "why", "note"),
    "email": ("email", "mail"),
    "articles": ("items", "articles", "lines", "products"),
}
WORD = re.compile(r"[a-z]+")


@dataclass
class Vocabulary:
    aliases: dict[str, str] = field(default_factory=dict)  # reference name → the agent's own
    params: dict[str, list[str]] = field(default_factory=dict)  # the agent's tool → its parameter names

    def reference_name(self, name: str) -> str:
        for reference, own in self.aliases.items():
            if own == name:
                return reference
        return name

    def call_for(self, name: str, args: dict[str, Any]) -> tuple[str, dict[str, Any]]:
        """The brain's call in the agent's own tool name and parameter names."""
        own = self.aliases.get(name)
        if own is None:
            return name, args
        params = self.params.get(own, [])
        out: dict[str, Any] = {}
        for key, value in args.items():
            target = _best_param(key, params, taken=set(out))
            if target is not None:
                out[target] = value
        if not out and args and len(params) == 1:  # one parameter: it takes the first argument
            out[params[0]] = next(iter(args.values()))
        return own, out


def _words(*texts: str) -> str:
    return " ".join(texts).lower().replace("-", "_")


def _score(hints: tuple[str, ...], text: str) -> int:
    return sum(1 for hint in hints if hint in text)


def _best_param(key: str, params: list[str], taken: set[str]) -> str | None:
    if key in params:
        return key
    hints = ARGUMENTS.get(key, (key,))
    ranked = sorted(((_score(hints, p.lower()), p) for p in params if p not in taken), reverse=True)
    return ranked[0][1] if ranked and ranked[0][0] > 0 else None


def vocabulary(declarations: list[Mapping[str, Any]]) -> Vocabulary:
    """The reference tools found among a request's function declarations (the reference agent's own
    names match themselves; each declaration stands for one reference tool at most, the best scored)."""
    names = {str(d.get("name", "")) for d in declarations}
    found = Vocabulary()
    for d in declarations:
        # google-genai 2.x sends a schema given as `parameters_json_schema` under that very name, others
        # under `parametersJsonSchema`: each is read as `parameters`
        schema = d.get("parameters") or d.get("parametersJsonSchema") or d.get("parameters_json_schema") or {}
        properties = schema.get("properties") if isinstance(schema, Mapping) else None
        found.params[str(d.get("name", ""))] = list(properties) if isinstance(properties, Mapping) else []
    scores: list[tuple[int, str, str]] = []
    for reference, hints in HINTS.items():
        if reference in names:
            continue
        for d in declarations:
            own = str(d.get("name", ""))
            if own in HINTS:
                continue
            # the name counts twice: "transfer_to_human" says more than a description's words
            text = _words(own, own, str(d.get("description", "")), *found.params.get(own, []))
            score = _score(hints, text)
            if score:
                scores.append((score, reference, own))
    used: set[str] = set()
    for _, reference, own in sorted(scores, reverse=True):
        if reference not in found.aliases and own not in used:
            found.aliases[reference] = own
            used.add(own)
    return found
