"""The gate in English (`FILON_LANG=en`, `filon eval --lang en`): the console and JUnit say the report's
sentences in English, the report file stays French, French stays the default; a language it does not
speak is a usage error."""

from __future__ import annotations

import json
import re
from pathlib import Path
from xml.etree import ElementTree as ET

from typer.testing import CliRunner

from filon.cli import app

runner = CliRunner()
ROOT = Path(__file__).resolve().parents[3]
# words only the French report uses: none may be left in an English line (the case format's own labels,
# such as « <commande du cas> », and the texts a check quotes are carried over as they are)
FRENCH = re.compile(
    r"\b(outil|attendu|obtenue?|tour|texte|escalade|état|règle|seuil|catégorie|Décision|Rapport|"
    r"tentative|écart|avis|consultati\w+|bloquante?|substitut|jetons|Coût|Latence|hors score|juge|simulateur)\b"
)
# the case format's own words are data, said as written: quoted texts, a category's name, an option's
CASE_DATA = re.compile(r"«[^»]*»|--tentative|\bescalade \d+/\d+|\bscripted-\w+")  # a model's id is data too


def french(line: str) -> bool:
    return bool(FRENCH.search(CASE_DATA.sub("", line)))


def _eval(
    tmp_path: Path, *extra: str, env: dict[str, str] | None = None, ids: str | None = "adv-01,cmd-01"
) -> tuple[int, str, str]:
    result = runner.invoke(
        app,
        [
            "eval", "--backend", "scripted", "--prompt", str(ROOT / "agent/prompts/court.md"),
            "--goldens", str(ROOT / "goldens/cases"), *(("--ids", ids) if ids else ()),
            "--report", str(tmp_path / "r.json"), "--junit", str(tmp_path / "j.xml"), *extra,
        ],
        env=env,
    )  # fmt: skip
    return result.exit_code, result.stdout, result.stderr


def test_the_console_and_junit_speak_english_and_the_report_stays_french(tmp_path: Path) -> None:
    """The whole set on court.md, the prompt of the incident: every kind of gap the checks write."""
    code, out, err = _eval(tmp_path, "--lang", "en", ids=None)
    assert code == 1  # court.md fails the security cases: the seeds' incident
    banner = [line for line in err.splitlines() if line.startswith("⚠")]  # the run's banner, in its language
    assert banner and banner[0].startswith("⚠ scripted stand-in model at http://127.0.0.1:"), err
    assert not french(banner[0])
    lines = out.splitlines()
    assert any(line.startswith("FAIL   adv-01") for line in lines)
    assert any(
        line.startswith("Decision: failed — blocking category failed, whatever the score: ") for line in lines
    )
    assert any(line.startswith("Score ") and "(threshold" in line for line in lines)
    assert any(line.startswith("By category: ") for line in lines)
    assert [line for line in lines if french(line)] == []
    failures = ET.parse(tmp_path / "j.xml").getroot().findall(".//failure")
    assert len(failures) > 5 and any(
        f.get("message", "").startswith("forbidden tool called: ") for f in failures
    )
    assert [f.text for f in failures if french(f.text or "")] == []
    report = json.loads((tmp_path / "r.json").read_text(encoding="utf-8"))
    assert report["porte"]["regle"].startswith("catégorie bloquante en échec")


def test_french_is_the_default_and_an_unknown_language_is_a_usage_error(tmp_path: Path) -> None:
    code, out, _ = _eval(tmp_path)
    assert code == 1 and any(line.startswith("Décision : échoué") for line in out.splitlines())
    code, _, err = _eval(tmp_path, env={"FILON_LANG": "de"})
    assert code == 2 and err.strip() == "error: FILON_LANG: Input should be 'fr' or 'en' (got 'de')"
    code, _, err = _eval(tmp_path, "--lang", "xx")
    assert code == 2 and "--lang 'xx'" in err


def test_what_a_newcomer_read_in_french_under_lang_en_is_english(tmp_path: Path) -> None:
    """The case's own data named in English, the command to open an attempt run as printed (a newcomer's
    had answered in French), the simulated customer's line."""
    code, out, _ = _eval(tmp_path, "--lang", "en", ids="suivi-05,sim-01")
    assert code == 1
    assert "missing tool: consulter_commande(numero=<the case's commande>)" in out
    assert re.search(r"→ filon eval show suivi-05 --attempt 1 --lang en --report \S+", out)
    assert re.search(r"Simulated customer \S+ \(stand-in\): goal reached \d/\d", out)


def test_a_report_read_back_is_said_in_english_from_its_codes(tmp_path: Path) -> None:
    """`eval show` and `eval compare` say the report's French sentences in English through the codes the
    report keeps beside them, the customer's own words untouched (a parser of French had rewritten them)."""
    code, _, _ = _eval(tmp_path, ids="adv-04")
    assert code == 1
    report = json.loads((tmp_path / "r.json").read_text(encoding="utf-8"))
    gaps = report["cas"][0]["tentatives"][0]["ecarts"]
    assert gaps and all(g in report["codes"] for g in gaps)
    shown = runner.invoke(
        app, ["eval", "show", "adv-04", "--report", str(tmp_path / "r.json"), "--lang", "en"]
    )
    assert shown.exit_code == 0, shown.stderr
    lines = shown.stdout.splitlines()
    assert lines[0] == "adv-04 (securite) · attempt 1/1 · failed"
    assert "  gap: forbidden tool called: consulter_commande(numero=≠<the case's commande>)" in lines
    assert any(line.startswith("customer > Bonjour") for line in lines)  # what the customer wrote, as written
    assert [
        line for line in lines if french(line) and not line.startswith(("customer >", "agent  >", "  tool "))
    ] == []
    md = tmp_path / "compare.md"
    same = [str(tmp_path / "r.json")] * 2
    compared = runner.invoke(app, ["eval", "compare", *same, "--lang", "en", "--markdown", str(md)])
    assert compared.stdout.splitlines()[-1].startswith(
        "Verdict: NOT WORSE — difference +0.0%, within the margin"
    )
    summary = md.read_text(encoding="utf-8")  # the pull request's summary speaks the console's language
    assert (
        summary.startswith("## ✅ filon: B not worse than A\n") and "No case changed its result." in summary
    )
    assert not french(summary)


def test_an_older_report_is_said_as_written(tmp_path: Path) -> None:
    """A report of version 6 has no codes: its sentences are shown in its French, never guessed."""
    _eval(tmp_path, ids="adv-04")
    path = tmp_path / "r.json"
    report = json.loads(path.read_text(encoding="utf-8"))
    del report["codes"]
    report["version"] = 6
    path.write_text(json.dumps(report, ensure_ascii=False), encoding="utf-8")
    shown = runner.invoke(app, ["eval", "show", "adv-04", "--report", str(path), "--lang", "en"])
    assert shown.exit_code == 0
    assert "  gap: outil interdit appelé : consulter_commande(numero=≠<commande du cas>)" in shown.stdout
