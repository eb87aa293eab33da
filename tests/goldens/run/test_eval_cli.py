"""`filon eval` end to end: the scripted model over HTTP, the agent, spans, grader, gate, reports."""

from __future__ import annotations

import itertools
import json
import re
import shlex
import shutil
from pathlib import Path
from xml.etree import ElementTree as ET

import pytest
from typer.testing import CliRunner

from filon.cli import app
from filon.goldens.verdict.report_model import EvalReport
from filon.miner.rules.rulebook import defaults
from tests.conftest import REPO, copy_set

runner = CliRunner()
CASES = REPO / "goldens" / "cases"


def run(tmp_path: Path, *args: str) -> tuple[int, dict | None, str]:  # type: ignore[type-arg]
    report = tmp_path / "rapport.json"
    result = runner.invoke(
        app, ["eval", "--backend", "scripted", "--goldens", str(CASES), "--report", str(report), *args]
    )
    doc = json.loads(report.read_text()) if report.exists() else None
    return result.exit_code, doc, result.stdout + result.stderr


def test_default_prompt_passes_with_full_report_and_junit(tmp_path: Path) -> None:
    code, doc, out = run(tmp_path, "--junit", str(tmp_path / "eval.xml"))
    assert code == 0, out
    assert doc is not None
    assert set(doc) == {
        "version",
        "codes",
        "cible",
        "score",
        "seuil",
        "porte",
        "categories",
        "latence",
        "cout",
        "erreurs",
        "modele",
        "prompt",
        "execution",
        "cas",
        "interrompu",
        "bloquants",
        "empreintes",
        "baseline",
        "juge",
        "embeddings",
        "simulateur",
        "budget",
        "regles",
        "pires",
        "couverture",
    }
    assert doc["version"] == 7 and EvalReport.parse(doc).version == 7  # the file is the typed model
    assert doc["porte"]["decision"] == "réussi" and doc["score"] >= 0.9
    assert doc["modele"]["substitut"] is True and "substitut scripté" in out
    assert len(doc["prompt"]["sha256"]) == 64
    esc = next(c for c in doc["cas"] if c["id"] == "esc-03")["tentatives"][0]
    assert esc["outils"] == ["transferer_a_un_conseiller"] and esc["escalade"] is True
    assert esc["jetons_entree"] > 0 and len(esc["trace_ids"][0]) == 32
    # every rule of the rulebook, proven on the set's examples, gates; the blocking ones are said
    rules = {n: (r["decisive"], r["bloquante"]) for n, r in doc["regles"].items()}
    assert rules == {name: (True, rule.blocking) for name, rule in defaults().items()}
    blocking = {"fuite", "injection_suivie", "identite_non_verifiee", "geste_promis"}
    assert {n for n, (_, b) in rules.items() if b} >= blocking and "fait_non_fonde" in rules
    assert doc["porte"]["regles_bloquantes"] == {} and "Règles : fuite (bloquante)" in out
    # the trajectory, turn by turn, from the spans: the customer's message, each call with its arguments
    # and result, redacted as the store redacts (the customer's e-mail rode in the transfer's motif)
    [turn] = esc["tours"]
    assert turn["client"].startswith("Ma livraison avait 2 jours de retard") and turn["escalade"] is True
    [call] = turn["appels"]
    assert call["outil"] == "transferer_a_un_conseiller" and call["resultat"]["transfert"] == "accepté"
    assert "@redacted.invalid" in call["args"]["motif"] and "@exemple.fr" not in json.dumps(esc["tours"])
    two = next(c for c in doc["cas"] if c["id"] == "suivi-06")["tentatives"][0]["tours"]
    assert [[a["outil"] for a in t["appels"]] for t in two] == [[], ["consulter_commande", "suivre_colis"]]
    suite = ET.parse(tmp_path / "eval.xml").getroot()
    assert int(suite.get("tests", "0")) == len(doc["cas"]) and suite.get("failures") == "0"
    assert "Score" in out and "Par catégorie" in out


def test_court_prompt_fails_through_security_even_over_the_threshold(tmp_path: Path) -> None:
    code, doc, out = run(tmp_path, "--prompt", "agent/prompts/court.md", "--seuil", "0.6")
    assert code == 1
    assert doc is not None
    assert doc["score"] >= doc["seuil"]  # the average alone would have let it through
    assert doc["porte"]["decision"] == "échoué" and doc["porte"]["echecs_bloquants"]["securite"]
    assert "securite" in doc["porte"]["regle"]
    leak = next(c for c in doc["cas"] if c["id"] == "adv-01")["tentatives"][0]
    assert "outil interdit appelé : consulter_commande" in leak["ecarts"]
    # the five worst, read before the average: what no score compensates first, then the most gaps
    worst = doc["pires"]
    assert len(worst) == 5 and worst[0]["bloquant"] and "adv-01" in [w["cas"] for w in worst]
    blocked = [bool(w["bloquant"]) for w in worst]
    assert blocked == sorted(blocked, reverse=True)  # every blocking one before any other
    for earlier, later in itertools.pairwise(worst):
        if bool(earlier["bloquant"]) == bool(later["bloquant"]):
            assert len(earlier["ecarts"]) >= len(later["ecarts"])
    assert "Les 5 pires tentatives" in out and worst[0]["commande"] in out
    opened = runner.invoke(app, shlex.split(worst[0]["commande"])[1:])  # the command opens it, turn by turn
    assert opened.exit_code == 0, opened.output
    assert opened.stdout.startswith(f"{worst[0]['cas']} (") and "client > " in opened.stdout
    leaked = runner.invoke(app, ["eval", "show", "adv-01", "--report", str(tmp_path / "rapport.json")])
    assert "écart : outil interdit appelé : consulter_commande" in leaked.stdout
    assert "outil consulter_commande {" in leaked.stdout  # the call, with its arguments
    said = runner.invoke(
        app, ["eval", "show", "adv-01", "--report", str(tmp_path / "rapport.json"), "--lang", "en"]
    )
    assert "gap: forbidden tool called: consulter_commande" in said.stdout  # the English console, as eval's
    assert "  tool consulter_commande {" in said.stdout and "── turn 1" in said.stdout
    assert "tentative" not in said.stdout and "écart" not in said.stdout
    missing = runner.invoke(app, ["eval", "show", "adv-1", "--report", str(tmp_path / "rapport.json")])
    assert missing.exit_code == 2 and "did you mean adv-01" in missing.stderr
    absent = runner.invoke(app, ["eval", "show", "zz-99", "--report", str(tmp_path / "rapport.json")])
    assert absent.exit_code == 2 and "case(s) of the run started" in absent.stderr  # which run it holds
    assert "a later run replaced it? --report names another" in absent.stderr


def test_quota_storm_is_inconclusive_and_stops_early(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setenv("FILON_SCRIPTED_429_RATE", "1")
    code, doc, _ = run(tmp_path)
    assert code == 3
    assert doc is not None and doc["porte"]["decision"] == "non concluant"
    assert doc["erreurs"]["circuit_ouvert"] is True
    assert doc["erreurs"]["nombre"] == len(doc["cas"])


def test_no_credentials_is_inconclusive(tmp_path: Path) -> None:
    result = runner.invoke(app, ["eval", "--goldens", str(CASES), "--report", str(tmp_path / "r.json")])
    assert result.exit_code == 3 and "GEMINI_API_KEY" in result.stderr
    assert not (tmp_path / "r.json").exists()


def test_duplicate_id_is_an_invalid_set(tmp_path: Path) -> None:
    folder = tmp_path / "cases"
    copy_set(folder)
    shutil.copy(folder / "faq-01.json", folder / "faq-01-copie.json")
    result = runner.invoke(app, ["eval", "--backend", "scripted", "--goldens", str(folder)])
    assert result.exit_code == 4 and "duplicate id 'faq-01'" in result.stderr


@pytest.mark.parametrize(
    ("edit", "needle"),
    [
        (
            {"par_tour": [{}, {"outils": ["suivre_colis"]}]},
            "suivi-01.json: par_tour[1]: 2 blocks for a case of 1 turn(s)",
        ),
        (
            {"ordre": ["suivre_colis", "demander_retour"], "outils_interdits": ["demander_retour"]},
            "suivi-01.json: ordre[1]:",
        ),
        ({"outils": [{"outil": "suivre_colis", "mode": "presque"}]}, "suivi-01.json: outils[0].mode:"),
    ],
)
def test_a_trajectory_check_that_cannot_hold_makes_the_set_invalid(
    tmp_path: Path, edit: dict[str, object], needle: str
) -> None:
    folder = tmp_path / "cases"
    copy_set(folder)
    case = json.loads((folder / "suivi-01.json").read_text())
    (folder / "suivi-01.json").write_text(json.dumps({**case, **edit}, ensure_ascii=False))
    result = runner.invoke(app, ["eval", "--backend", "scripted", "--goldens", str(folder)])
    assert result.exit_code == 4 and needle in result.stderr, result.output


@pytest.mark.parametrize(
    ("args", "needle"),
    [
        (["--ids", "faq-01,nope"], "unknown case id(s): nope"),
        (["--seuil", "1.5"], "--seuil"),
        (["--repeat", "0"], "--repeat"),
    ],
)
def test_usage_errors_exit_2(tmp_path: Path, args: list[str], needle: str) -> None:
    code, _, out = run(tmp_path, *args)
    assert code == 2 and needle in out


def test_baseline_diff_and_repeat(tmp_path: Path) -> None:
    good = tmp_path / "good.json"
    runner.invoke(app, ["eval", "--backend", "scripted", "--ids", "adv-01,faq-01", "--report", str(good)])
    code, doc, out = run(
        tmp_path, "--ids", "adv-01,faq-01", "--prompt", "court.md", "--repeat", "2", "--baseline", str(good)
    )
    assert code == 1
    assert doc is not None
    assert doc["baseline"]["nouveaux_echecs"] == ["adv-01"]
    adv = next(c for c in doc["cas"] if c["id"] == "adv-01")
    assert (adv["reussis"], adv["total"], adv["stabilite"]) == (0, 2, "stable échec")
    assert "Nouveaux échecs : adv-01" in out


def test_eval_seuil_from_environment(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setenv("EVAL_SEUIL", "0.95")
    code, doc, _ = run(tmp_path, "--ids", "faq-01")
    assert code == 0 and doc is not None and doc["seuil"] == 0.95


def test_repeat_lines_keep_the_label_apart_from_the_id(tmp_path: Path) -> None:
    code, _, out = run(tmp_path, "--ids", "faq-01", "--repeat", "2")
    assert code == 0, out
    assert re.search(r"^2/2 stable réussi\s+faq-01\s", out, re.M), out
    case_lines = [line for line in out.splitlines() if re.match(r"\S.*\sfaq-01\s", line)]
    assert len(case_lines) == 1  # printed as it finished, not again in the summary
    assert "  1. faq-01 (tentative " in out  # the five worst name it apart, with the command that opens it


def test_junit_stays_well_formed_xml_whatever_a_trace_held(tmp_path: Path) -> None:
    """A report whose attempt carries an ANSI escape, a bell, a NUL and a lone surrogate (an agent's answer
    or a tool's name put them there): the JUnit a CI reads still parses, each made visible."""
    from xml.etree import ElementTree as ET

    from filon.goldens.verdict.junit import junit
    from filon.goldens.verdict.report_model import EvalReport

    code, doc, _ = run(tmp_path, "--ids", "faq-01")
    assert code == 0 and doc is not None
    hostile = "\x1b]0;pwned\x07 \x1b[2J \x00 \ud800 \u202e"
    attempt = doc["cas"][0]["tentatives"][0]
    attempt.update(statut="echec", outils=[hostile], ecarts=[f"texte : {hostile}"])
    xml = junit(EvalReport.parse(doc))
    root = ET.fromstring(xml.split("\n", 1)[1])  # parses: well-formed
    failure = root.find("testcase/failure")
    assert failure is not None and failure.text is not None
    assert "\\x1b]0;pwned\\x07" in failure.text and "\\ud800" in failure.text
    assert "\x1b" not in xml and "\x00" not in xml


def test_the_report_says_how_much_of_last_weeks_traffic_the_set_covers(tmp_path: Path) -> None:
    """With production traffic in the store, the report and the console end with the set's coverage of
    the last week's traffic; with none (the other tests' stores), nothing is said."""
    made = runner.invoke(
        app, ["traffic", "--backend", "scripted", "--seed", "4", "-n", "30", "--sample-rate", "1"]
    )
    assert made.exit_code == 0, made.output
    code, doc, out = run(tmp_path, "--ids", "faq-01")
    assert code == 0, out
    assert doc is not None and doc["couverture"] is not None
    cov = doc["couverture"]
    assert cov["jours"] == 7 and 0 < cov["couvertes"] <= cov["conversations"]
    assert f"({cov['couvertes']}/{cov['conversations']} conversations" in out
    code, doc, _ = run(tmp_path, "--ids", "faq-01")  # the gate's own replays are not production's traffic
    assert doc is not None and doc["couverture"]["conversations"] == cov["conversations"]


def test_a_case_with_many_gaps_says_each_on_a_line_of_its_own(tmp_path: Path) -> None:
    """adv-04 on the shortened prompt fails by six gaps: on one line they made 380 characters, wrapped
    anywhere by a terminal. The case's line keeps status, id, tools and time; each gap is a line under it."""
    code, doc, out = run(tmp_path, "--ids", "adv-04,faq-01", "--prompt", "court.md")
    assert code == 1 and doc is not None, out
    lines = out.splitlines()
    [at] = [i for i, line in enumerate(lines) if re.match(r"^ÉCHEC\s+adv-04\s", line)]
    [attempt] = next(c for c in doc["cas"] if c["id"] == "adv-04")["tentatives"]
    gaps = attempt["ecarts"]
    assert len(gaps) >= 3 and len(lines[at]) <= 100 and "ms" in lines[at]
    assert [line.strip() for line in lines[at + 1 : at + 1 + len(gaps)]] == gaps
    assert re.search(r"^OK\s+faq-01\s.*ms$", out, re.M)  # a line that fits stays one line
