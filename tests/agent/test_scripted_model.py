"""The scripted model over a real loopback socket: raw HTTP, then through google-genai's own client."""

from __future__ import annotations

import json
import urllib.error
import urllib.request
from typing import Any

import pytest
from google.genai import errors

from filon.agent.model import scripted_client
from filon.agent.scripted import ScriptedModel, ScriptedSettings


def post(url: str, body: Any, path: str = "/v1beta/models/m:generateContent") -> tuple[int, dict[str, Any]]:
    data = body if isinstance(body, bytes) else json.dumps(body).encode()
    req = urllib.request.Request(url + path, data=data, headers={"Content-Type": "application/json"})
    try:
        with urllib.request.urlopen(req, timeout=5) as resp:
            return resp.status, json.loads(resp.read())
    except urllib.error.HTTPError as exc:
        return exc.code, json.loads(exc.read())


def user(text: str) -> dict[str, Any]:
    return {
        "contents": [{"role": "user", "parts": [{"text": text}]}],
        "tools": [
            {"functionDeclarations": [{"name": "rechercher_aide"}, {"name": "transferer_a_un_conseiller"}]}
        ],
    }


def test_generate_content_answers_in_gemini_shape(scripted: ScriptedModel) -> None:
    status, body = post(scripted.url, user("Quels sont les frais de livraison ?"))
    assert status == 200
    part = body["candidates"][0]["content"]["parts"][0]
    assert part["functionCall"]["name"] == "rechercher_aide"
    assert body["usageMetadata"]["promptTokenCount"] > 0
    assert body["modelVersion"].startswith("scripted")


def test_unknown_route_and_bad_json_are_gemini_errors(scripted: ScriptedModel) -> None:
    status, body = post(scripted.url, user("x"), path="/v1beta/models/m:countTokens")
    assert status == 404 and body["error"]["status"] == "NOT_FOUND"
    status, body = post(scripted.url, b"{not json")
    assert status == 400 and body["error"]["status"] == "INVALID_ARGUMENT"


def test_health(scripted: ScriptedModel) -> None:
    with urllib.request.urlopen(scripted.url + "/health", timeout=5) as resp:
        assert json.loads(resp.read())["stand_in"] is True


def test_429_surfaces_as_the_sdks_client_error() -> None:
    with ScriptedModel(ScriptedSettings(rate_429=1.0)) as server:
        client = scripted_client(server.url)
        with pytest.raises(errors.ClientError) as info:
            client.models.generate_content(model="m", contents="Bonjour")
    assert info.value.code == 429
    assert info.value.status == "RESOURCE_EXHAUSTED"
    assert server.faults == 1


def test_503_surfaces_as_the_sdks_server_error() -> None:
    with ScriptedModel(ScriptedSettings(rate_503=1.0)) as server:
        client = scripted_client(server.url)
        with pytest.raises(errors.ServerError) as info:
            client.models.generate_content(model="m", contents="Bonjour")
    assert info.value.code == 503


def test_same_seed_same_answers_even_with_noise() -> None:
    bodies = [user(t) for t in ("Je veux un geste commercial", "Bonjour", "Je veux un code promo")] * 4

    def run(seed: int) -> list[Any]:
        with ScriptedModel(ScriptedSettings(seed=seed, noise=0.5, rate_429=0.2)) as server:
            return [post(server.url, b) for b in bodies]

    assert run(7) == run(7)
    assert run(7) != run(8)


def test_settings_from_env_validate(monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setenv("FILON_SCRIPTED_429_RATE", "0.25")
    monkeypatch.setenv("FILON_SCRIPTED_LATENCY_MS", "800")
    settings = ScriptedSettings.from_env(seed=3)
    assert (settings.rate_429, settings.latency_ms, settings.seed) == (0.25, 800.0, 3)
    monkeypatch.setenv("FILON_SCRIPTED_503_RATE", "lots")
    with pytest.raises(ValueError, match="FILON_SCRIPTED_503_RATE"):
        ScriptedSettings.from_env()
    monkeypatch.delenv("FILON_SCRIPTED_503_RATE")
    with pytest.raises(ValueError, match="rate_429"):
        ScriptedSettings.from_env(rate_429=2.0, rate_503=0.0)


def test_google_genai_3_default_api_version_v1_is_served(scripted: ScriptedModel) -> None:
    status, body = post(
        scripted.url, user("Quels sont les frais de livraison ?"), "/v1/models/m:generateContent"
    )
    assert status == 200 and body["candidates"][0]["content"]["parts"]


def _after_tool(response: Any) -> str:
    body = {
        "contents": [
            {"role": "user", "parts": [{"text": "Quel est le statut de ma commande LL-10587 ?"}]},
            {"role": "model", "parts": [{"functionCall": {"name": "consulter_commande", "args": {}}}]},
            {
                "role": "user",
                "parts": [{"functionResponse": {"name": "consulter_commande", "response": response}}],
            },
        ],
        "tools": [{"functionDeclarations": [{"name": "consulter_commande"}]}],
    }
    return str(ScriptedModel.respond("m", body)["candidates"][0]["content"]["parts"][0].get("text"))


def test_a_tool_result_wrapped_as_the_ai_sdk_sends_it_reads_as_the_result_itself() -> None:
    order = {
        "numero": "LL-10587",
        "statut": "expédiée",
        "articles": [],
        "montant_articles": 10,
        "frais_port": 2,
    }
    plain = _after_tool(order)
    assert "expédiée" in plain and plain != _after_tool({"erreur": "commande inconnue"})
    assert _after_tool({"name": "consulter_commande", "content": order}) == plain
    assert _after_tool({"name": "consulter_commande", "content": json.dumps(order)}) == plain


def test_a_request_the_stand_in_cannot_read_gets_a_json_error(scripted: ScriptedModel) -> None:
    status, body = post(scripted.url, {"contents": "not a list of contents"})
    assert status == 400 and body["error"]["status"] == "INVALID_ARGUMENT"


FOREIGN = [
    {
        "functionDeclarations": [
            {
                "name": "lookup_order",
                "description": "Look up an order's status.",
                "parameters": {"type": "OBJECT", "properties": {"order_id": {"type": "STRING"}}},
            },
            {
                "name": "track_parcel",
                "description": "Where a parcel is.",
                "parameters": {"type": "OBJECT", "properties": {"order_number": {"type": "STRING"}}},
            },
            {
                "name": "transfer_to_human",
                "description": "Hand the customer to a person.",
                "parameters": {"type": "OBJECT", "properties": {"reason": {"type": "STRING"}}},
            },
            {
                "name": "get_weather",
                "description": "Today's weather.",
                "parameters": {"type": "OBJECT", "properties": {"city": {"type": "STRING"}}},
            },
        ]
    }
]


def _ask(contents: list[dict[str, Any]], tools: list[dict[str, Any]] = FOREIGN) -> dict[str, Any]:
    part = ScriptedModel.respond("m", {"contents": contents, "tools": tools})["candidates"][0]["content"][
        "parts"
    ][0]
    return dict(part)


def test_the_stand_in_calls_another_agent_s_tools_by_what_they_are() -> None:
    asked = {"role": "user", "parts": [{"text": "Où est mon colis pour la commande LL-10587 ?"}]}
    call = _ask([asked])["functionCall"]
    assert call == {"name": "track_parcel", "args": {"order_number": "LL-10587"}}
    result = {"name": "track_parcel", "response": {"status": "in transit", "carrier": "Colissimo"}}
    answer = _ask(
        [
            asked,
            {"role": "model", "parts": [{"functionCall": call}]},
            {"role": "user", "parts": [{"functionResponse": result}]},
        ]
    )
    assert "in transit" in answer["text"] and "Colissimo" in answer["text"]  # its own fields, quoted


def test_the_stand_in_escalates_with_the_agent_s_own_tool_and_never_calls_an_unrelated_one() -> None:
    human = {"role": "user", "parts": [{"text": "Je veux parler à un humain, mon colis est abîmé."}]}
    call = _ask([human])["functionCall"]
    assert call["name"] == "transfer_to_human" and set(call["args"]) == {"reason"}
    weather_only = [{"functionDeclarations": [FOREIGN[0]["functionDeclarations"][3]]}]
    assert "functionCall" not in _ask([human], weather_only)


def test_a_tool_declared_with_a_json_schema_gets_its_arguments(scripted: ScriptedModel) -> None:
    """google-genai's newer form (`parameters_json_schema`), through the real client over HTTP: the
    stand-in reads its schema as it reads `parameters`, and calls the tool with its own argument."""
    from google import genai
    from google.genai import types

    declared = types.FunctionDeclaration(
        name="lookup_order",
        description="Look up an order's status.",
        parameters_json_schema={"type": "object", "properties": {"order_id": {"type": "string"}}},
    )
    client = genai.Client(api_key="scripted", http_options=types.HttpOptions(base_url=scripted.url))
    reply = client.models.generate_content(
        model="gemini-2.5-flash",
        contents="Quel est le statut de ma commande LL-10587 ?",
        config=types.GenerateContentConfig(
            tools=[types.Tool(function_declarations=[declared])],
            automatic_function_calling=types.AutomaticFunctionCallingConfig(disable=True),
        ),
    )
    [call] = reply.function_calls or []
    assert (call.name, call.args) == ("lookup_order", {"order_id": "LL-10587"})


FAQ_BOT = [
    {
        "functionDeclarations": [
            {
                "name": "search_help_center",
                "description": "Search the help center articles.",
                "parameters": {"type": "OBJECT", "properties": {"query": {"type": "STRING"}}},
            },
            {
                "name": "get_order",
                "description": "Look up an order by its id.",
                "parameters": {"type": "OBJECT", "properties": {"order_id": {"type": "STRING"}}},
            },
            {
                "name": "handoff_to_human",
                "description": "Hand the customer to a person.",
                "parameters": {"type": "OBJECT", "properties": {"reason": {"type": "STRING"}}},
            },
        ]
    }
]


def test_an_english_customer_is_answered_in_english_with_the_agent_s_own_tools() -> None:
    """An English FAQ bot on the stand-in: a question searches its help center and quotes what came back,
    an order is looked up with its own tool, a person is handed over by its own tool, and nothing is
    answered in French."""
    asked = {"role": "user", "parts": [{"text": "How do I get a refund for my jacket?"}]}
    call = _ask([asked], FAQ_BOT)["functionCall"]
    assert call == {"name": "search_help_center", "args": {"query": "How do I get a refund for my jacket?"}}
    found = {"passages": [{"text": "Refunds are issued within 14 days of receiving the return."}]}
    answer = _ask(
        [
            asked,
            {"role": "model", "parts": [{"functionCall": call}]},
            {"role": "user", "parts": [{"functionResponse": {"name": call["name"], "response": found}}]},
        ],
        FAQ_BOT,
    )["text"]
    assert answer.startswith("Here is what I found") and "within 14 days of receiving the return" in answer
    nothing = _ask(  # a search that found nothing is said so, never as its bare JSON
        [
            asked,
            {"role": "model", "parts": [{"functionCall": call}]},
            {
                "role": "user",
                "parts": [{"functionResponse": {"name": call["name"], "response": {"passages": []}}}],
            },
        ],
        FAQ_BOT,
    )["text"]
    assert nothing == "I found nothing on that in our help pages." and "{" not in nothing
    order = {"role": "user", "parts": [{"text": "What is the status of my order PP-2001?"}]}
    assert _ask([order], FAQ_BOT)["functionCall"] == {"name": "get_order", "args": {"order_id": "PP-2001"}}
    person = {"role": "user", "parts": [{"text": "Can I speak to a human please?"}]}
    assert _ask([person], FAQ_BOT)["functionCall"]["name"] == "handoff_to_human"
    hello = _ask([{"role": "user", "parts": [{"text": "Hello!"}]}], FAQ_BOT)
    weather_only = [{"functionDeclarations": [FOREIGN[0]["functionDeclarations"][3]]}]
    other = _ask(
        [{"role": "user", "parts": [{"text": "Can you tell me a joke about the sea?"}]}], weather_only
    )
    for said in (hello["text"], other["text"]):
        assert "Je " not in said and "vous" not in said, said
    assert "get_weather" in other["text"]  # says what this agent's tools cover
    # a French customer of the same agent is still answered in French
    french = _ask([{"role": "user", "parts": [{"text": "Bonjour, je voudrais parler à un humain"}]}], FAQ_BOT)
    assert french["functionCall"]["name"] == "handoff_to_human"
