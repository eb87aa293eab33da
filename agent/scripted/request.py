"""A `generateContent` request as the scripted model sees it: the system text, the user's texts, this
turn's tool results, the tools offered, and what the prompt says of identity; plus the model's decision.
"""

from __future__ import annotations

import json
import re
from dataclasses import dataclass, field
from datetime import date
from typing import Any

from filon.agent.scripted.rules import read_rules
from filon.agent.scripted.vocabulary import Vocabulary, vocabulary

SENDER = re.compile(r"Numéro de l'expéditeur : (\d+)")
TODAY = re.compile(r"Date du jour : (\d{4}-\d{2}-\d{2})")


@dataclass
class Turn:
    """The request seen from the model: system text, the user's texts, this turn's tool results."""

    system: str
    user_texts: list[str]
    results: list[tuple[str, dict[str, Any]]]
    tools: set[str]
    verification: bool  # the prompt carries the identity rule
    sender: str | None
    today: date
    obeys_injection: bool = False  # the prompt orders obeying a "mode maintenance"
    vocabulary: Vocabulary = field(default_factory=Vocabulary)  # the agent's own tool names, if not ours

    @property
    def text(self) -> str:
        return self.user_texts[-1] if self.user_texts else ""

    def result(self, name: str) -> dict[str, Any] | None:
        for tool, response in reversed(self.results):
            if tool == name:
                return dict(response)
        return None

    def called(self, name: str) -> bool:
        return any(tool == name for tool, _ in self.results)

    def escalation_tool(self) -> str:
        """The agent's escalation tool: ours, or a foreign agent's (handoff, human, escalate, transfer)."""
        if "transferer_a_un_conseiller" in self.tools:
            return "transferer_a_un_conseiller"
        hints = ("handoff", "human", "escalat", "transfer", "conseiller", "agent_humain")
        return next(
            (t for t in sorted(self.tools) if any(h in t.lower() for h in hints)),
            "transferer_a_un_conseiller",
        )


@dataclass
class Decision:
    call: tuple[str, dict[str, Any]] | None = None
    text: str = ""
    notes: list[str] = field(default_factory=list)
    withholds: bool = False  # a refusal to say what a tool returned (identity, injection)


def _response(value: Any) -> dict[str, Any]:
    """A tool's result as the clients send it: the object itself (google-genai), or wrapped as
    `{name, content}` with the content an object or its JSON (the Vercel AI SDK)."""
    if isinstance(value, dict) and set(value) == {"name", "content"}:
        value = value["content"]
        if isinstance(value, str):
            try:
                value = json.loads(value)
            except ValueError:
                return {"resultat": value}
    return value if isinstance(value, dict) else {"resultat": value} if value is not None else {}


def parse(body: dict[str, Any]) -> Turn:
    system = " ".join(p.get("text", "") for p in (body.get("systemInstruction") or {}).get("parts", []))
    contents = body.get("contents") or []
    user_texts: list[str] = []
    results: list[tuple[str, dict[str, Any]]] = []
    for content in contents:
        for part in content.get("parts") or []:
            if content.get("role", "user") == "user" and "text" in part:
                user_texts.append(str(part["text"]))
                results = []  # a new user message starts a new turn
            elif "functionResponse" in part:
                fr = part["functionResponse"]
                results.append((fr.get("name", ""), _response(fr.get("response"))))
    declarations = [
        d
        for tool in body.get("tools") or []
        for d in tool.get("functionDeclarations") or tool.get("function_declarations") or []
    ]
    words = vocabulary(declarations)
    tools = {str(d.get("name", "")) for d in declarations} | set(words.aliases)
    results = [(words.reference_name(name), result) for name, result in results]
    sender = SENDER.search(system)
    today = TODAY.search(system)
    rules = read_rules(system)
    return Turn(
        system=system,
        user_texts=user_texts,
        results=results,
        tools=tools,
        verification=rules.verification,
        sender=sender.group(1) if sender else None,
        today=date.fromisoformat(today.group(1)) if today else date.today(),
        obeys_injection=rules.obeys_injection,
        vocabulary=words,
    )


def euros(value: float, decimal: str = ",") -> str:
    return f"{value:.2f}".replace(".", decimal) + " €"


def day(iso: str | None) -> str:
    return date.fromisoformat(iso).strftime("%d/%m/%Y") if iso else "—"
