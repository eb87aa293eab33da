"""The run report to share (issue 45): `filon eval --html` writes one self-contained page, `--summary`
the same as Markdown (appended to `$GITHUB_STEP_SUMMARY` when that is set and no path is given). Read
back by parsing, and in headless Chromium where Debian's `chromium` is installed (skipped, saying so,
otherwise): its DOM after rendering holds every part, and a screenshot is taken of the whole page."""

from __future__ import annotations

import json
import shutil
import subprocess
from html.parser import HTMLParser
from pathlib import Path

import pytest
from typer.testing import CliRunner

from filon.cli import app
from filon.goldens.verdict import share_html, share_md
from filon.goldens.verdict.report_model import EvalReport
from filon.goldens.verdict.share import gather
from tests.conftest import REPO

runner = CliRunner()
CASES = REPO / "goldens" / "cases"
PARTS = ("runs", "categories", "worst", "rules", "coverage")


class Page(HTMLParser):
    """What a reader's browser would fetch or run, and the parts the page holds."""

    def __init__(self) -> None:
        super().__init__()
        self.tags: list[str] = []
        self.ids: list[str] = []
        self.fetches: list[str] = []
        self.text: list[str] = []

    def handle_starttag(self, tag: str, attrs: list[tuple[str, str | None]]) -> None:
        self.tags.append(tag)
        for name, value in attrs:
            if name == "id" and value:
                self.ids.append(value)
            if name in ("src", "href") or (name == "rel" and value == "stylesheet"):
                self.fetches.append(f"{tag} {name}={value}")

    def handle_data(self, data: str) -> None:
        self.text.append(data)


def run_eval(tmp_path: Path, *args: str, env: dict[str, str] | None = None) -> int:
    result = runner.invoke(
        app,
        ["eval", "--backend", "scripted", "--goldens", str(CASES), "--ids", "adv-01,faq-01,cmd-01", *args],
        env=env,
    )
    return result.exit_code


def test_the_page_holds_every_part_and_fetches_nothing(tmp_path: Path) -> None:
    page, summary = tmp_path / "run.html", tmp_path / "run.md"
    assert run_eval(tmp_path) == 0
    court = str(REPO / "agent" / "prompts" / "court.md")
    assert run_eval(tmp_path, "--prompt", court, "--html", str(page), "--summary", str(summary)) == 1
    parsed = Page()
    parsed.feed(page.read_text(encoding="utf-8"))
    assert "script" not in parsed.tags and parsed.fetches == []  # readable offline, with no script
    assert set(PARTS) <= set(parsed.ids)
    assert parsed.tags.count("svg") == 2  # the runs by prompt, the categories' bars: one run of court.md
    text = "".join(parsed.text)
    assert "échoué" in text and "adv-01" in text and "identite_non_verifiee" in text
    assert "system.md" in text and "court.md" in text  # one line per prompt, the earlier run included
    markdown = summary.read_text(encoding="utf-8")
    assert markdown.startswith("## ❌") and "| securite (bloquante) | 0% | 0/1 |" in markdown
    assert "adv\\-01" in markdown or "adv-01" in markdown
    assert run_eval(tmp_path, "--prompt", court, "--html", str(page)) == 1
    again = Page()
    again.feed(page.read_text(encoding="utf-8"))
    assert again.tags.count("svg") == 3  # and the categories over this prompt's two runs


def test_a_job_summary_is_appended_when_no_path_is_given(tmp_path: Path) -> None:
    step = tmp_path / "step_summary.md"
    step.write_text("## before\n", encoding="utf-8")
    assert run_eval(tmp_path, env={"GITHUB_STEP_SUMMARY": str(step)}) == 0
    written = step.read_text(encoding="utf-8")
    assert written.startswith("## before\n## ✅")  # what the job's earlier steps wrote is kept


def test_an_unwritable_page_leaves_the_decision_as_it_was(tmp_path: Path) -> None:
    blocker = tmp_path / "file"
    blocker.write_text("x")
    assert run_eval(tmp_path, "--html", str(blocker / "run.html")) == 0  # a folder under a file
    assert not (blocker / "run.html").exists()


def hostile_report(tmp_path: Path) -> EvalReport:
    """A run's report whose answers, arguments and gaps carry markup, as a model or a customer may write."""
    report_path = tmp_path / "rapport.json"
    assert (
        run_eval(tmp_path, "--report", str(report_path), "--prompt", str(REPO / "agent/prompts/court.md"))
        == 1
    )
    data = json.loads(report_path.read_text(encoding="utf-8"))
    for case in data["cas"]:
        for attempt in case["tentatives"]:
            attempt["ecarts"] = [*attempt["ecarts"], "<script>alert(1)</script> | `x` [l](javascript:y)"]
            for turn in attempt.get("tours", []):
                turn["reponse"] = "<img src=x onerror=alert(2)>\n# titre\n| a | b |"
    for worst in data["pires"]:
        worst["ecarts"] = [*worst["ecarts"], "<script>alert(1)</script> | `x` [l](javascript:y)"]
    return EvalReport.parse(data)


def test_text_from_traces_is_text_on_the_page_and_in_the_summary(tmp_path: Path) -> None:
    shared = gather(hostile_report(tmp_path), "rapport.json")
    page = share_html.render(shared, "fr")
    parsed = Page()
    parsed.feed(page)
    assert "script" not in parsed.tags and "img" not in parsed.tags and parsed.fetches == []
    assert "<script>alert(1)</script>" in "".join(parsed.text)  # shown, as text
    markdown = share_md.render(shared, "en")
    assert "<script>" not in markdown and "<img" not in markdown
    assert "[l](javascript" not in markdown  # no link opens: its brackets are escaped
    for line in markdown.splitlines():
        if line.startswith("   - ") and "alert(1)" in line:
            assert "\\|" in line and "\\[" in line
    assert "## " in markdown and "The worst attempts" in markdown  # the console's language: English


@pytest.mark.browser
@pytest.mark.skipif(shutil.which("chromium") is None, reason="Debian's chromium is not installed")
def test_headless_chromium_renders_every_part(tmp_path: Path) -> None:
    page = tmp_path / "run.html"
    assert run_eval(tmp_path, "--html", str(page)) == 0
    browser = ["chromium", "--headless", "--no-sandbox", "--disable-gpu", "--hide-scrollbars"]
    dom = subprocess.run(
        [*browser, "--dump-dom", page.as_uri()], capture_output=True, text=True, timeout=120, check=True
    ).stdout
    for part in PARTS:
        assert f'id="{part}"' in dom, part
    assert dom.count("<svg") >= 2 and "réussi" in dom
    shot = tmp_path / "shot.png"
    subprocess.run(
        [*browser, "--window-size=1000,1600", f"--screenshot={shot}", page.as_uri()],
        capture_output=True,
        timeout=120,
        check=True,
    )
    png = shot.read_bytes()
    assert png[:8] == b"\x89PNG\r\n\x1a\n"
    assert int.from_bytes(png[16:20], "big") == 1000 and int.from_bytes(png[20:24], "big") == 1600


def test_one_attempt_is_the_worst_attempt_not_the_1_worst(tmp_path: Path) -> None:
    result = runner.invoke(app, ["eval", "--backend", "scripted", "--goldens", str(CASES), "--ids", "faq-01"])
    assert result.exit_code == 0
    assert "La pire tentative (à lire avant la moyenne) :" in result.stdout
    assert "Les 1 pires" not in result.stdout
    english = runner.invoke(
        app, ["eval", "--backend", "scripted", "--goldens", str(CASES), "--ids", "faq-01", "--lang", "en"]
    )
    assert "The worst attempt (to read before the average):" in english.stdout


def test_an_english_summary_and_page_say_nothing_in_french_outside_the_quotes(tmp_path: Path) -> None:
    """`--lang en --summary` printed « **blocking** : catégorie securite », « Deciding rule : » and
    `filon eval show … --tentative 1` while the console says `--attempt 1`."""
    import re

    summary, page = tmp_path / "s.md", tmp_path / "p.html"
    code = run_eval(
        tmp_path, "--prompt", "court.md", "--lang", "en", "--summary", str(summary), "--html", str(page),
        "--report", str(tmp_path / "r.json"),
    )  # fmt: skip
    assert code == 1
    for text in (summary.read_text(encoding="utf-8"), page.read_text(encoding="utf-8")):
        outside = re.sub(r"«[^»]*»|<pre>.*?</pre>", "", text, flags=re.S)  # quotes, the agent's own words
        assert "--tentative" not in outside and "--attempt 1" in outside
        assert "catégorie" not in outside and " : " not in outside, outside
