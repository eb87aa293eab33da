"""`SupportService`: one call to `repondre` is one user turn, traced as one `invoke_agent` span.

Function calling runs with automatic function calling disabled: the agent executes each tool itself,
inside an `execute_tool` span, so every action it takes is visible in its trace. Spans are made with
`opentelemetry-util-genai`'s `TelemetryHandler` (the GenAI conventions' shape) through the OTel API
only; the `generate_content` spans come from the official google-genai instrumentation when whoever
runs the agent has enabled it.
"""

from __future__ import annotations

import json
import threading
from collections import OrderedDict
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

from google import genai
from google.genai import types
from opentelemetry.trace import TracerProvider
from opentelemetry.util.genai.handler import TelemetryHandler
from opentelemetry.util.genai.types import Error, InputMessage, OutputMessage, Text

from filon.agent.prompts import Prompt, load_prompt
from filon.agent.shop import Shop, new_shop
from filon.agent.tools import DECLARATIONS, ESCALATION_TOOL, Toolbox, ToolError

AGENT_NAME = "support-lin-et-laine"
MAX_STEPS = 6
MAX_CONVERSATIONS = 10_000
MAX_HISTORY = 60
FALLBACK = "Je suis désolé, je n'ai pas pu traiter votre demande. Souhaitez-vous parler à un conseiller ?"


@dataclass(frozen=True)
class Conversation:
    """Who is talking: WhatsApp conversations are keyed by the phone number, web ones by a session id."""

    canal: str  # "web" or "whatsapp"
    cle: str  # the phone number (whatsapp) or the session id (web)

    @classmethod
    def whatsapp(cls, tel: str) -> Conversation:
        return cls("whatsapp", tel.lstrip("+").replace(" ", ""))

    @classmethod
    def web(cls, session: str) -> Conversation:
        return cls("web", session)

    @property
    def id(self) -> str:
        return f"{self.canal}:{self.cle}"


@dataclass
class AppelOutil:
    nom: str
    arguments: dict[str, Any]
    resultat: dict[str, Any]
    erreur: str | None = None


@dataclass
class Reponse:
    texte: str
    outils: list[str] = field(default_factory=list)
    escalade: bool = False
    appels: list[AppelOutil] = field(default_factory=list)
    input_tokens: int = 0
    output_tokens: int = 0
    modele: str = ""

    def as_json(self) -> dict[str, Any]:
        return {"texte": self.texte, "outils": self.outils, "escalade": self.escalade}


class SupportService:
    """The Lin & Laine support agent. Thread-safe: turns of different conversations may run at once."""

    def __init__(
        self,
        client: genai.Client,
        model: str,
        prompt: Prompt | str | Path | None = None,
        shop: Shop | None = None,
        tracer_provider: TracerProvider | None = None,
        temperature: float = 0.2,
    ) -> None:
        self.client = client
        self.model = model
        self.prompt = prompt if isinstance(prompt, Prompt) else load_prompt(prompt)
        self.shop = shop or new_shop()
        self.tools = Toolbox(self.shop)
        self.temperature = temperature
        self._telemetry = TelemetryHandler(tracer_provider=tracer_provider)
        self._memory: OrderedDict[str, list[types.Content]] = OrderedDict()
        self._lock = threading.Lock()
        self._config_tools = [types.Tool(function_declarations=[_declaration(d) for d in DECLARATIONS])]

    def _system(self, conversation: Conversation) -> str:
        if conversation.canal == "whatsapp":
            context = f"Canal : WhatsApp. Numéro de l'expéditeur : {conversation.cle}."
        else:
            context = "Canal : web (client non identifié tant qu'il n'a pas donné son adresse e-mail)."
        return f"{self.prompt.text.strip()}\n\nContexte : {context} Date du jour : {self.shop.today.isoformat()}."

    def _history(self, conversation: Conversation) -> list[types.Content]:
        with self._lock:
            history = self._memory.get(conversation.id, [])
            return list(history)

    def _remember(self, conversation: Conversation, contents: list[types.Content]) -> None:
        with self._lock:
            self._memory[conversation.id] = contents[-MAX_HISTORY:]
            self._memory.move_to_end(conversation.id)
            while len(self._memory) > MAX_CONVERSATIONS:
                self._memory.popitem(last=False)

    def repondre(self, conversation: Conversation | str, message: str) -> Reponse:
        """Answer one user message. Model errors (429, 5xx) propagate as google-genai's own errors."""
        if isinstance(conversation, str):
            conversation = Conversation.web(conversation)
        invocation = self._telemetry.invoke_local_agent(
            agent_name=AGENT_NAME, request_model=self.model, conversation_id=conversation.id
        )
        invocation.attributes["support.channel"] = conversation.canal
        invocation.attributes["support.prompt.sha256"] = self.prompt.sha256
        invocation.input_messages = [InputMessage(role="user", parts=[Text(content=message)])]
        try:
            reponse = self._turn(conversation, message)
        except BaseException as exc:
            invocation.fail(exc)
            raise
        invocation.output_messages = [
            OutputMessage(role="assistant", parts=[Text(content=reponse.texte)], finish_reason="stop")
        ]
        invocation.input_tokens = reponse.input_tokens
        invocation.output_tokens = reponse.output_tokens
        invocation.attributes["support.escalated"] = reponse.escalade
        invocation.stop()
        return reponse

    def _turn(self, conversation: Conversation, message: str) -> Reponse:
        contents = self._history(conversation)
        contents.append(types.Content(role="user", parts=[types.Part.from_text(text=message)]))
        config = types.GenerateContentConfig(
            system_instruction=self._system(conversation),
            tools=self._config_tools,
            automatic_function_calling=types.AutomaticFunctionCallingConfig(disable=True),
            temperature=self.temperature,
        )
        reponse = Reponse(texte="")
        for _ in range(MAX_STEPS):
            result = self.client.models.generate_content(model=self.model, contents=contents, config=config)
            usage = result.usage_metadata
            if usage is not None:
                reponse.input_tokens += usage.prompt_token_count or 0
                reponse.output_tokens += usage.candidates_token_count or 0
            reponse.modele = result.model_version or self.model
            calls = result.function_calls or []
            candidate = result.candidates[0].content if result.candidates else None
            if not calls:
                reponse.texte = (result.text or "").strip()
                if candidate is not None:
                    contents.append(candidate)
                break
            contents.append(candidate or types.Content(role="model", parts=[]))
            parts = [self._call(call, reponse) for call in calls]
            contents.append(types.Content(role="user", parts=parts))
        else:
            reponse.texte = FALLBACK
        self._remember(conversation, contents)
        reponse.escalade = ESCALATION_TOOL in reponse.outils
        return reponse

    def _call(self, call: types.FunctionCall, reponse: Reponse) -> types.Part:
        name = call.name or ""
        args = dict(call.args or {})
        invocation = self._telemetry.tool(name, tool_type="function", agent_name=AGENT_NAME)
        invocation.tool_call_id = call.id
        invocation.arguments = args
        try:
            result = self.tools.run(name, args)
        except ToolError as exc:
            result = {"erreur": str(exc)}
            invocation.tool_result = result
            invocation.fail(Error(message=str(exc), type="ToolError"))
            reponse.appels.append(AppelOutil(name, args, result, str(exc)))
        except Exception as exc:  # a bug in a tool must not break the turn: the model hears of it
            result = {"erreur": f"erreur interne de l'outil {name}"}
            invocation.tool_result = result
            invocation.fail(exc)
            reponse.appels.append(AppelOutil(name, args, result, type(exc).__name__))
        else:
            invocation.tool_result = result
            invocation.stop()
            reponse.appels.append(AppelOutil(name, args, result))
        reponse.outils.append(name)
        return types.Part.from_function_response(name=name, response=json.loads(json.dumps(result)))


def _declaration(spec: dict[str, Any]) -> types.FunctionDeclaration:
    return types.FunctionDeclaration(
        name=spec["name"], description=spec["description"], parameters_json_schema=spec["parameters"]
    )
