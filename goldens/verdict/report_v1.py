"""Reading a version-1 eval report (English keys beside French ones) in the current version's words, so
that a baseline or a run A written by an older filon still compares."""

from __future__ import annotations

from typing import Any

from filon.goldens.verdict.report_model import DECISIONS, VERSION

V1_STABILITY = {"stable pass": "stable réussi", "stable fail": "stable échec", "unstable": "instable"}


def upgrade_v1(old: dict[str, Any]) -> dict[str, Any]:
    """A version-1 report (English keys beside French ones) in version 2's words."""
    run, modele, prompt = old.get("run") or {}, old.get("modele") or {}, old.get("prompt") or {}
    latency = old.get("latence") or {}
    return {
        "version": VERSION,
        "score": old.get("score"),
        "seuil": old.get("seuil", ((old.get("gate") or {}).get("numbers") or {}).get("seuil", 0.9)),
        "porte": _gate_v1(old),
        "categories": {
            k: {"reussis": v.get("passed", 0), "valides": v.get("valid", 0), "erreurs": v.get("errors", 0)}
            for k, v in (old.get("categories") or {}).items()
        },
        "latence": {
            "p50_ms": latency.get("p50_ms"),
            "p95_ms": latency.get("p95_ms"),
            "tours": latency.get("turns", 0),
        },
        "cout": _cost_v1(old.get("cout") or {}),
        "erreurs": _errors_v1(old.get("erreurs") or {}),
        "modele": {
            "nom": modele.get("name", "?"),
            "backend": modele.get("backend", "?"),
            "versions": modele.get("versions") or [],
            "substitut": bool(modele.get("stand_in")),
        },
        "prompt": {
            "chemin": prompt.get("path", "?"),
            "nom": prompt.get("name", "?"),
            "sha256": prompt.get("sha256", ""),
        },
        "execution": {
            "id": run.get("id", "?"),
            "debut": run.get("started_at", ""),
            "duree_s": run.get("duration_s", 0.0),
            "goldens": run.get("goldens", ""),
            "repetitions": run.get("repeat", 1),
        },
        "cas": [_case_v1(c) for c in old.get("cas") or []],
        "interrompu": bool(old.get("interrompu")),
        "bloquants": old.get("bloquants") or ["securite"],
        "empreintes": old.get("empreintes") or {},
    }


def _gate_v1(old: dict[str, Any]) -> dict[str, Any]:
    gate = old.get("gate") or {}
    numbers = gate.get("numbers") or {}
    return {
        "decision": DECISIONS.get(gate.get("decision", ""), "non concluant"),
        "regle": gate.get("rule", ""),
        "code_sortie": gate.get("exit_code", 3),
        "chiffres": {
            "reussis": numbers.get("passed", 0),
            "valides": numbers.get("valid", 0),
            "erreurs": numbers.get("errors", 0),
            "total": numbers.get("total", 0),
            "score": numbers.get("score", old.get("score")),
            "seuil": numbers.get("seuil", old.get("seuil", 0.9)),
            "taux_erreurs": numbers.get("error_rate", 0.0),
            "taux_erreurs_max": numbers.get("max_error_rate", 0.1),
        },
        "echecs_bloquants": gate.get("blocking_failures") or {},
    }


def _cost_v1(cost: dict[str, Any]) -> dict[str, Any]:
    return {
        "jetons_entree": cost.get("input_tokens", 0),
        "jetons_sortie": cost.get("output_tokens", 0),
        "modele": cost.get("modele", ""),
        "total_usd": cost.get("total_usd"),
        "par_conversation_usd": cost.get("par_conversation_usd"),
        "prix": cost.get("prix"),
        "note": cost.get("note"),
    }


def _errors_v1(errors: dict[str, Any]) -> dict[str, Any]:
    return {
        "nombre": errors.get("count", 0),
        "taux": errors.get("rate", 0.0),
        "taux_max": errors.get("max_rate", 0.0),
        "par_type": errors.get("by_type") or {},
        "circuit_ouvert": bool(errors.get("circuit_opened")),
        "reprises": errors.get("retries", 0),
    }


def _case_v1(case: dict[str, Any]) -> dict[str, Any]:
    return {
        "id": case["id"],
        "categorie": case.get("categorie", ""),
        "reussis": case.get("passed", 0),
        "valides": case.get("valid", 0),
        "total": case.get("total", len(case.get("attempts") or [])),
        "stabilite": V1_STABILITY.get(case.get("label", ""), "erreur"),
        "tentatives": [
            {
                "tentative": a.get("attempt", 1),
                "statut": a.get("statut", "erreur"),
                "outils": a.get("outils") or [],
                "reponses": a.get("reponses") or [],
                "escalade": bool(a.get("escalade")),
                "ecarts": a.get("ecarts") or [],
                "latences_ms": a.get("latences_ms") or [],
                "jetons_entree": a.get("input_tokens", 0),
                "jetons_sortie": a.get("output_tokens", 0),
                "erreur": a.get("erreur"),
                "trace_ids": a.get("trace_ids") or [],
            }
            for a in case.get("attempts") or []
        ],
    }
