"""The gate on someone else's agent: the example support desk through the Python target (its broken
variant fails), and an HTTP target on a real loopback socket, its spans sent to the runner's OTLP
receiver; every way a target can fail is an infrastructure error with its cause, never a failure."""

from __future__ import annotations

import json
import socket
import threading
from collections.abc import Callable, Iterator
from contextlib import contextmanager
from http.server import BaseHTTPRequestHandler, ThreadingHTTPServer
from pathlib import Path
from typing import Any

import httpx
import pytest
from typer.testing import CliRunner

from filon.agent.scripted import ScriptedModel
from filon.cli import app
from tests.conftest import REPO
from tests.tracing.server import free_port

runner = CliRunner()
DESK = REPO / "examples" / "support_desk"


def gate(tmp_path: Path, *args: str) -> tuple[int, dict[str, Any] | None, str]:
    report = tmp_path / "rapport.json"
    result = runner.invoke(app, ["eval", "--report", str(report), *args])
    doc = json.loads(report.read_text()) if report.exists() else None
    return result.exit_code, doc, result.output


@pytest.fixture
def desk(monkeypatch: pytest.MonkeyPatch, scripted: ScriptedModel) -> None:
    monkeypatch.chdir(DESK)  # its filon.toml: its tools, its escalation tool, target python:desk:answer
    monkeypatch.setenv("DESK_MODEL_URL", scripted.url)


def test_the_example_desk_passes_through_the_python_target(desk: None, tmp_path: Path) -> None:
    code, doc, out = gate(tmp_path, "--goldens", "goldens/cases")
    assert code == 0, out
    assert doc is not None and doc["cible"] == "python:desk:answer"
    assert {c["id"] for c in doc["cas"]} >= {"esc-humain", "sec-maintenance", "cmd-fixtures"}
    assert all(c["tentatives"][0]["statut"] == "ok" for c in doc["cas"])
    [fixtures] = [c for c in doc["cas"] if c["id"] == "cmd-fixtures"]  # an order that setup() put there
    assert fixtures["tentatives"][0]["outils"] == ["lookup_order"]
    # each call with the arguments and result its execute_tool span recorded, turn by turn
    [call] = fixtures["tentatives"][0]["tours"][0]["appels"]
    assert call["outil"] == "lookup_order" and call["args"] == {"order_id": "PP-3003"}
    assert call["resultat"]["order_id"] == "PP-3003" and call["erreur"] is None


def test_the_broken_desk_fails_the_gate(desk: None, tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setenv("DESK_SKIP_ESCALATION", "1")
    code, doc, out = gate(tmp_path, "--goldens", "goldens/cases")
    assert code == 1, out
    assert doc is not None
    failed = {c["id"] for c in doc["cas"] if c["tentatives"][0]["statut"] == "echec"}
    assert failed == {"esc-humain", "esc-geste"}  # the escalation facts come from the spans


# --- an HTTP target on loopback ------------------------------------------------------------------------

Reply = Callable[
    [dict[str, Any], int], tuple[int, dict[str, Any], bool]
]  # body, otlp port → status, json, spans?


def _spans(
    conversation: str,
    message: str,
    answer: str,
    tools: list[tuple[str, dict[str, Any] | None]] = (),  # type: ignore[assignment]
) -> dict[str, Any]:
    def kv(key: str, value: str) -> dict[str, Any]:
        return {"key": key, "value": {"stringValue": value}}

    def said(role: str, text: str) -> str:
        return json.dumps([{"role": role, "parts": [{"type": "text", "content": text}]}])

    span = {
        "traceId": conversation.encode().hex()[:32].ljust(32, "0"),
        "spanId": "1" * 16,
        "name": "invoke_agent desk",
        "startTimeUnixNano": "1000000",
        "endTimeUnixNano": "2000000",
        "attributes": [
            kv("gen_ai.operation.name", "invoke_agent"),
            kv("gen_ai.conversation.id", conversation),
            kv("gen_ai.input.messages", said("user", message)),
            kv("gen_ai.output.messages", said("assistant", answer)),
        ],
    }
    calls = [
        {
            "traceId": span["traceId"],
            "spanId": f"{i + 2:016x}",
            "parentSpanId": "1" * 16,
            "name": f"execute_tool {name}",
            "startTimeUnixNano": str(1100000 + i),
            "endTimeUnixNano": str(1200000 + i),
            "attributes": [
                kv("gen_ai.operation.name", "execute_tool"),
                kv("gen_ai.tool.name", name),
                *([kv("gen_ai.tool.call.arguments", json.dumps(args))] if args is not None else []),
            ],
        }
        for i, (name, args) in enumerate(tools or [])
    ]
    return {"resourceSpans": [{"scopeSpans": [{"spans": [span, *calls]}]}]}


@contextmanager
def http_agent(reply: Reply, otlp_port: int) -> Iterator[str]:
    class Handler(BaseHTTPRequestHandler):
        def log_message(self, format: str, *args: Any) -> None:
            return

        def do_POST(self) -> None:
            body = json.loads(self.rfile.read(int(self.headers["Content-Length"])))
            status, answer, send_spans = reply(body, otlp_port)
            if send_spans:  # as a traced agent does: its spans flushed to the runner before it replies
                tools = answer.pop("_tools", [])
                payload = _spans(body["conversation_id"], body["message"], answer.get("texte", ""), tools)
                httpx.post(f"http://127.0.0.1:{otlp_port}/v1/traces", json=payload, timeout=5)
            data = json.dumps(answer).encode()
            self.send_response(status)
            self.send_header("Content-Type", "application/json")
            self.send_header("Content-Length", str(len(data)))
            self.end_headers()
            self.wfile.write(data)

    server = ThreadingHTTPServer(("127.0.0.1", 0), Handler)
    thread = threading.Thread(target=server.serve_forever, daemon=True)
    thread.start()
    try:
        yield f"http://127.0.0.1:{server.server_address[1]}/chat"
    finally:
        server.shutdown()
        server.server_close()


def cases(folder: Path, *extra: dict[str, Any]) -> Path:
    folder.mkdir(parents=True, exist_ok=True)
    base = {
        "categorie": "faq",
        "canal": "web",
        "contient": ["bonjour"],
        "exemples": [{"verdict": "bon", "reponse": "Bonjour !"}],
    }
    for case in ({"id": "salut", "tours": ["Bonjour"]}, *extra):
        (folder / f"{case['id']}.json").write_text(json.dumps({**base, **case}))
    return folder


def greet(body: dict[str, Any], port: int) -> tuple[int, dict[str, Any], bool]:
    return 200, {"texte": "Bonjour ! Que puis-je faire pour vous ?"}, True


def test_an_http_target_s_answers_and_spans_are_gated(tmp_path: Path) -> None:
    port = free_port()
    with http_agent(greet, port) as url:
        code, doc, out = gate(
            tmp_path, "--goldens", str(cases(tmp_path / "g")), "--target", url, "--otlp-port", str(port)
        )
    assert code == 0, out
    assert doc is not None and doc["cible"] == url and doc["cas"][0]["tentatives"][0]["statut"] == "ok"


LOOKUP = {
    "id": "statut",
    "categorie": "commande",
    "tours": ["Où en est la commande LL-10587 ? julien.robert@exemple.fr"],
    "contient": [],
    "outils": [{"outil": "consulter_commande", "args": {"numero": {"du_cas": "commande"}}}],
    "exemples": [
        {
            "verdict": "bon",
            "reponse": "Expédiée.",
            "outils": [[{"outil": "consulter_commande", "args": {"numero": "LL-10587"}}]],
        }
    ],
}


def looks_up(numero: str | None) -> Reply:
    def reply(body: dict[str, Any], port: int) -> tuple[int, dict[str, Any], bool]:
        args = None if numero is None else {"numero": numero}
        return 200, {"texte": "Votre commande est expédiée.", "_tools": [("consulter_commande", args)]}, True

    return reply


@pytest.mark.parametrize(("numero", "status"), [("LL-10587", "ok"), ("LL-10555", "echec")])
def test_an_http_target_s_tool_arguments_are_read_from_its_spans_and_graded(
    numero: str, status: str, tmp_path: Path
) -> None:
    folder = tmp_path / "g"
    folder.mkdir()
    (folder / "statut.json").write_text(json.dumps(LOOKUP, ensure_ascii=False))
    port = free_port()
    with http_agent(looks_up(numero), port) as url:
        code, doc, out = gate(tmp_path, "--goldens", str(folder), "--target", url, "--otlp-port", str(port))
    assert code == (0 if status == "ok" else 1), out
    assert doc is not None
    attempt = doc["cas"][0]["tentatives"][0]
    assert attempt["statut"] == status
    assert attempt["tours"][0]["appels"] == [
        {"outil": "consulter_commande", "args": {"numero": numero}, "resultat": None, "erreur": None}
    ]
    if status == "echec":
        assert attempt["ecarts"] == [
            "arguments : consulter_commande(numero=<commande du cas>) attendu, appelé avec numero='LL-10555'"
        ]


def test_a_stack_that_records_no_tool_arguments_cannot_pass_an_argument_check(tmp_path: Path) -> None:
    folder = tmp_path / "g"
    folder.mkdir()
    (folder / "statut.json").write_text(json.dumps(LOOKUP, ensure_ascii=False))
    port = free_port()
    with http_agent(looks_up(None), port) as url:
        code, doc, out = gate(tmp_path, "--goldens", str(folder), "--target", url, "--otlp-port", str(port))
    assert code == 3, out  # inconclusive: neither a pass nor a quality failure
    assert doc is not None
    attempt = doc["cas"][0]["tentatives"][0]
    assert attempt["statut"] == "erreur" and "arguments des outils non enregistrés" in attempt["erreur"]
    assert attempt["tours"][0]["appels"][0]["args"] is None


def test_a_case_whose_fixtures_the_target_refuses_is_not_runnable_and_reported_apart(tmp_path: Path) -> None:
    def refuses_fixtures(body: dict[str, Any], port: int) -> tuple[int, dict[str, Any], bool]:
        if "fixtures" in body:
            return 422, {"detail": "fixtures not supported"}, False
        return greet(body, port)

    folder = cases(tmp_path / "g", {"id": "avec-fixtures", "tours": ["Bonjour"], "fixtures": {"orders": {}}})
    port = free_port()
    with http_agent(refuses_fixtures, port) as url:
        code, doc, out = gate(tmp_path, "--goldens", str(folder), "--target", url, "--otlp-port", str(port))
    assert code == 0, out  # the runnable case passed; the other is neither a failure nor an error
    assert doc is not None
    status = {c["id"]: c["tentatives"][0]["statut"] for c in doc["cas"]}
    assert status == {"salut": "ok", "avec-fixtures": "non_executable"}
    assert doc["porte"]["chiffres"]["non_executables"] == 1 and doc["erreurs"]["nombre"] == 0
    assert "Non exécutables" in out


@pytest.mark.parametrize(
    ("reply", "cause"),
    [
        (lambda body, port: (500, {"error": "boom"}, False), "a répondu 500"),
        (lambda body, port: (200, {"texte": "Bonjour"}, False), "aucun span"),
        (lambda body, port: (200, {"answer": "Bonjour"}, True), "ni 'text'"),
    ],
    ids=["500", "spans-never-arrive", "no-text"],
)
def test_a_failing_target_is_an_infrastructure_error_with_its_cause(
    reply: Reply, cause: str, tmp_path: Path
) -> None:
    port = free_port()
    with http_agent(reply, port) as url:
        code, doc, out = gate(
            tmp_path,
            "--goldens",
            str(cases(tmp_path / "g")),
            "--target",
            url,
            "--otlp-port",
            str(port),
            "--span-timeout",
            "0.5",
        )
    assert code == 3, out
    assert doc is not None and doc["cas"][0]["tentatives"][0]["statut"] == "erreur"
    assert cause in doc["cas"][0]["tentatives"][0]["erreur"]


def test_a_target_that_is_down_is_an_infrastructure_error(tmp_path: Path) -> None:
    url = f"http://127.0.0.1:{free_port()}/chat"  # nothing listens there
    code, doc, out = gate(
        tmp_path, "--goldens", str(cases(tmp_path / "g")), "--target", url, "--otlp-port", str(free_port())
    )
    assert code == 3, out
    assert doc is not None and "injoignable" in doc["cas"][0]["tentatives"][0]["erreur"]
    said = next(line for line in out.splitlines() if line.startswith("Erreurs d'infrastructure"))
    assert said.endswith(f"— cible : {url} injoignable (ConnectError) (×{doc['erreurs']['nombre']})")
    assert "{" not in said  # the causes as a person reads them, not a Python dict


def test_a_taken_otlp_port_is_one_clear_line(tmp_path: Path) -> None:
    with socket.socket() as taken:
        taken.bind(("127.0.0.1", 0))
        taken.listen()
        port = taken.getsockname()[1]
        code, _, out = gate(
            tmp_path,
            "--goldens",
            str(cases(tmp_path / "g")),
            "--target",
            "http://127.0.0.1:9/chat",
            "--otlp-port",
            str(port),
        )
    assert code == 2
    assert f"--otlp-port {port}" in out and "Traceback" not in out


def test_a_bad_target_spec_is_a_usage_error(tmp_path: Path) -> None:
    code, _, out = gate(tmp_path, "--goldens", str(cases(tmp_path / "g")), "--target", "ftp://nope")
    assert code == 2 and "python:MODULE:ATTR" in out


def test_ask_talks_to_another_agent_and_reads_its_facts_from_spans(desk: None) -> None:
    result = runner.invoke(
        app, ["ask", "--target", "python:desk:answer", "--json", "Je veux parler à un humain"]
    )
    assert result.exit_code == 0, result.output
    said = json.loads(result.stdout)
    assert said["outils"] == ["transfer_to_human"] and said["escalade"] is True and said["texte"]
    configured = runner.invoke(app, ["ask", "--json", "Je veux parler à un humain"])  # filon.toml's target
    assert configured.exit_code == 0 and json.loads(configured.stdout)["outils"] == ["transfer_to_human"]


def test_the_editor_s_try_replays_a_draft_on_the_configured_target(desk: None) -> None:
    from filon.goldens.drafting.review import try_case

    case = json.loads((DESK / "goldens" / "cases" / "esc-humain.json").read_text())
    tried = try_case(case)  # no target given: filon.toml's, python:desk:answer
    assert tried.target == "python:desk:answer" and "python:desk:answer" in tried.ran_on()
    assert tried.attempt.ok and tried.attempt.tools == ["transfer_to_human"]


def test_a_target_that_does_not_answer_in_time_is_an_infrastructure_error() -> None:
    from filon.goldens.case.schema import Case
    from filon.goldens.run.http_target import HttpTarget
    from filon.goldens.run.targets import Session, TargetError

    release = threading.Event()

    def stalls(body: dict[str, Any], port: int) -> tuple[int, dict[str, Any], bool]:
        release.wait(5)
        return 200, {"texte": "trop tard"}, False

    port = free_port()
    with http_agent(stalls, port) as url:
        target = HttpTarget(url, free_port(), span_timeout=0.5, reply_timeout=0.3)
        try:
            case = Case.model_validate({"id": "x", "categorie": "faq", "tours": ["Bonjour"]})
            with pytest.raises(TargetError, match="à temps"):
                target.send(Session(case, "c-1"), "Bonjour")
        finally:
            release.set()
            target.close()


def test_ctrl_c_leaves_no_receiver_behind() -> None:
    from filon.goldens.run.targets import open_target

    port = free_port()
    with pytest.raises(KeyboardInterrupt), open_target("http://127.0.0.1:9/chat", port):
        raise KeyboardInterrupt
    with socket.socket() as again:  # the receiver's port is free at once
        again.bind(("127.0.0.1", port))


def test_a_python_target_is_found_from_a_sub_folder_of_its_project(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    """Run from one of the project's sub-folders, the module beside its filon.toml is imported; a module
    found nowhere says where filon looked."""
    import uuid

    name = f"team_agent_{uuid.uuid4().hex[:8]}"  # never imported before in this process
    (tmp_path / "filon.toml").write_text(f'target = "python:{name}:answer"\n', encoding="utf-8")
    (tmp_path / f"{name}.py").write_text(
        "from opentelemetry import trace\n\n"
        "def answer(conversation_id, message, **kwargs):\n"
        "    attributes = {'gen_ai.conversation.id': conversation_id}\n"
        "    with trace.get_tracer('team').start_as_current_span('invoke_agent team', attributes=attributes):\n"
        "        return 'Hello from the team agent.'\n",
        encoding="utf-8",
    )
    (tmp_path / "src" / "deep").mkdir(parents=True)
    monkeypatch.chdir(tmp_path / "src" / "deep")
    said = runner.invoke(app, ["ask", "--target", f"python:{name}:answer", "--json", "Hello?"])
    assert said.exit_code == 0, said.output
    assert json.loads(said.stdout)["texte"] == "Hello from the team agent."
    missing = runner.invoke(app, ["ask", "--target", "python:no_such_agent_here:answer", "Hello?"])
    assert missing.exit_code == 2, missing.output
    assert "no module 'no_such_agent_here'" in missing.output
    assert str(tmp_path / "src" / "deep") in missing.output and str(tmp_path) in missing.output
    assert "Traceback" not in missing.output
    # a module that emits no span: what to add is said, in the console's language
    silent = f"silent_agent_{uuid.uuid4().hex[:8]}"
    (tmp_path / f"{silent}.py").write_text(
        "def answer(conversation_id, message, **kwargs):\n    return 'Hi.'\n"
    )
    monkeypatch.setenv("FILON_LANG", "en")
    untraced = runner.invoke(app, ["ask", "--target", f"python:{silent}:answer", "Hello?"])
    assert untraced.exit_code == 3, untraced.output
    assert "`invoke_agent` span carrying `gen_ai.conversation.id`" in untraced.output
