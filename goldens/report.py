"""The run's report: the JSON document (everything, including which gate rule decided), the seeds'
console shape, JUnit XML from the same data, and the diff against a baseline report.
"""

from __future__ import annotations

import json
import os
import statistics
from collections import defaultdict
from importlib import resources
from pathlib import Path
from typing import Any
from xml.etree import ElementTree as ET

from goldens.gate import Gate, stability
from goldens.runner import Attempt, RunOutput


def percentile(values: list[float], q: float) -> float | None:
    if not values:
        return None
    if len(values) == 1:
        return values[0]
    return statistics.quantiles(sorted(values), n=100, method="inclusive")[int(q) - 1]


def prices() -> dict[str, dict[str, float]]:
    data = json.loads(resources.files("goldens").joinpath("prices.json").read_text(encoding="utf-8"))
    return {k: v for k, v in data.items() if not k.startswith("_")}


def cost(model: str, attempts: list[Attempt]) -> dict[str, Any]:
    tokens_in = sum(a.input_tokens for a in attempts)
    tokens_out = sum(a.output_tokens for a in attempts)
    price = prices().get(model)
    out: dict[str, Any] = {"input_tokens": tokens_in, "output_tokens": tokens_out, "modele": model}
    if price is None:
        out.update(
            total_usd=None, par_conversation_usd=None, note=f"no price for {model!r} in goldens/prices.json"
        )
        return out
    total = tokens_in / 1e6 * price["input_per_million"] + tokens_out / 1e6 * price["output_per_million"]
    conversations = len([a for a in attempts if a.valid]) or 1
    out.update(total_usd=round(total, 6), par_conversation_usd=round(total / conversations, 6), prix=price)
    return out


def build(
    run: RunOutput, gate: Gate, *, model: str, backend: str, prompt: dict[str, str], goldens: str, repeat: int
) -> dict[str, Any]:
    by_case: dict[str, list[Attempt]] = defaultdict(list)
    for a in run.attempts:
        by_case[a.case_id].append(a)
    categories: dict[str, dict[str, int]] = defaultdict(lambda: {"passed": 0, "valid": 0, "errors": 0})
    for a in run.attempts:
        c = categories[a.categorie]
        c["passed"] += a.ok
        c["valid"] += a.valid
        c["errors"] += not a.valid
    turns = [ms for a in run.attempts if a.valid for ms in a.latences_ms]
    error_types: dict[str, int] = defaultdict(int)
    for a in run.attempts:
        if a.erreur:
            error_types[a.erreur] += 1
    versions = sorted({v for a in run.attempts for v in a.modeles})
    cases = []
    for attempts in by_case.values():
        cases.append(case_entry(attempts))
    return {
        "score": gate.score,
        "seuil": gate.seuil,
        "gate": gate.as_json(),
        "categories": dict(categories),
        "latence": {"p50_ms": percentile(turns, 50), "p95_ms": percentile(turns, 95), "turns": len(turns)},
        "cout": cost(model, run.attempts),
        "erreurs": {
            "count": gate.errors,
            "rate": round(gate.error_rate, 4),
            "max_rate": gate.max_error_rate,
            "by_type": dict(error_types),
            "circuit_opened": run.circuit_opened,
            "retries": run.retried,
        },
        "modele": {
            "name": model,
            "backend": backend,
            "versions": versions,
            "stand_in": backend == "scripted",
        },
        "prompt": prompt,
        "run": {
            "id": run.run_id,
            "started_at": run.started_at.isoformat(),
            "duration_s": round(run.duration_s, 3),
            "goldens": goldens,
            "repeat": repeat,
        },
        "cas": sorted(cases, key=lambda c: c["id"]),
    }


def baseline_diff(report: dict[str, Any], baseline: dict[str, Any]) -> dict[str, list[str]]:
    def status(doc: dict[str, Any]) -> dict[str, str]:
        return {c["id"]: c.get("label", "") for c in doc.get("cas", [])}

    now, before = status(report), status(baseline)
    failing = ("stable fail", "unstable")
    return {
        "newly_failing": sorted(
            i for i, s in now.items() if s == "stable fail" and before.get(i) == "stable pass"
        ),
        "newly_fixed": sorted(i for i, s in now.items() if s == "stable pass" and before.get(i) in failing),
        "newly_unstable": sorted(
            i for i, s in now.items() if s == "unstable" and before.get(i) != "unstable"
        ),
        "new_cases": sorted(set(now) - set(before)),
        "removed_cases": sorted(set(before) - set(now)),
    }


def write_atomic(path: Path, text: str) -> None:
    path.parent.mkdir(parents=True, exist_ok=True)
    tmp = path.with_name(f".{path.name}.tmp")
    tmp.write_text(text, encoding="utf-8")
    os.replace(tmp, path)


def junit(report: dict[str, Any]) -> str:
    attempts = [(c, a) for c in report["cas"] for a in c["attempts"]]
    suite = ET.Element(
        "testsuite",
        name="filon-eval",
        tests=str(len(attempts)),
        failures=str(sum(a["statut"] == "echec" for _, a in attempts)),
        errors=str(sum(a["statut"] == "erreur" for _, a in attempts)),
    )
    for case, a in attempts:
        name = case["id"] if report["run"]["repeat"] == 1 else f"{case['id']}#{a['attempt']}"
        latency = sum(a["latences_ms"]) / 1000
        tc = ET.SubElement(
            suite, "testcase", classname=f"goldens.{case['categorie']}", name=name, time=f"{latency:.3f}"
        )
        if a["statut"] == "echec":
            failure = ET.SubElement(tc, "failure", message="; ".join(a["ecarts"]), type="quality")
            failure.text = "\n".join([*a["ecarts"], "outils : " + (", ".join(a["outils"]) or "-")])
        elif a["statut"] == "erreur":
            ET.SubElement(tc, "error", message=a["erreur"] or "", type="infrastructure")
    props = ET.SubElement(suite, "properties")
    for key in ("decision", "rule"):
        ET.SubElement(props, "property", name=f"gate.{key}", value=str(report["gate"][key]))
    ET.indent(suite)
    return ET.tostring(suite, encoding="unicode", xml_declaration=True) + "\n"


def case_line(case: dict[str, Any]) -> str:
    """One case as the seeds print it: status (or k/N and stability with repeats), id, tools, time, gaps."""
    last = case["attempts"][-1]
    status = {"ok": "OK", "echec": "ÉCHEC", "erreur": "ERREUR"}[last["statut"]]
    if case["total"] > 1:
        status = f"{case['passed']}/{case['valid']} {case['label']}"
    tools = ",".join(last["outils"]) or "-"
    ms = f"{sum(last['latences_ms']):.0f} ms" if last["latences_ms"] else "-"
    detail = "; ".join(last["ecarts"]) or (last["erreur"] or "")
    return f"{status:<6} {case['id']:<11} {tools:<50}{ms:>9}  {detail}".rstrip()


def case_entry(attempts: list[Attempt]) -> dict[str, Any]:
    """A case's entry in the report, from its attempts (also printed as each case finishes)."""
    attempts = sorted(attempts, key=lambda a: a.attempt)
    valid = [a for a in attempts if a.valid]
    return {
        "id": attempts[0].case_id,
        "categorie": attempts[0].categorie,
        "passed": sum(a.ok for a in valid),
        "valid": len(valid),
        "total": len(attempts),
        "label": stability(attempts),
        "attempts": [a.as_json() for a in attempts],
    }


def console_lines(report: dict[str, Any]) -> list[str]:
    """The seeds' shape: a line per case, score, per category, latency, cost, five worst, the rule."""
    lines = [case_line(case) for case in report["cas"]]
    g = report["gate"]["numbers"]
    score = f"{report['score']:.0%}" if report["score"] is not None else "-"
    lines.append("")
    lines.append(f"Score {g['passed']}/{g['valid']} = {score} (seuil {report['seuil']:.0%})")
    cats = ", ".join(f"{k} {v['passed']}/{v['valid']}" for k, v in sorted(report["categories"].items()))
    lines.append(f"Par catégorie : {cats}")
    lat = report["latence"]
    if lat["p50_ms"] is not None:
        lines.append(f"Latence par tour : p50 {lat['p50_ms']:.0f} ms, p95 {lat['p95_ms']:.0f} ms")
    c = report["cout"]
    if c.get("total_usd") is not None:
        lines.append(
            f"Coût : {c['total_usd']:.5f} $ au total, {c['par_conversation_usd']:.5f} $ par conversation"
        )
    e = report["erreurs"]
    if e["count"]:
        lines.append(f"Erreurs d'infrastructure (hors score) : {e['count']} {dict(e['by_type'])}")
    worst = sorted(
        (c for c in report["cas"] if c["passed"] < c["valid"]),
        key=lambda c: (c["passed"] / max(c["valid"], 1), c["id"]),
    )[:5]
    if worst:
        lines.append("Pires cas : " + ", ".join(f"{c['id']} ({c['passed']}/{c['valid']})" for c in worst))
    lines.append(f"Décision : {report['gate']['decision']} — {report['gate']['rule']}")
    return lines
