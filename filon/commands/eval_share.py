"""The run report to share, written after `filon eval` decided: `--html PATH` (one self-contained page)
and `--summary PATH` (Markdown; appended to `$GITHUB_STEP_SUMMARY` when that is set and no path is
given, as GitHub Actions expects of a job summary).

Writing them never changes the gate's decision: a page that cannot be written is one line on stderr and
the run's exit code stands (the report, the JSON file, is what the gate wrote).
"""

from __future__ import annotations

import os
from pathlib import Path
from typing import TYPE_CHECKING

if TYPE_CHECKING:
    from filon.goldens.verdict.report_model import EvalReport

SUMMARY_ENV = "GITHUB_STEP_SUMMARY"


def publish(
    report: EvalReport, report_path: Path, html: Path | None, summary: Path | None
) -> list[tuple[str, bool]]:
    """Write the page and the summary asked for; returns the lines to print, in the console's language,
    each with whether it says a failure (what was written, or why not)."""
    step_summary = os.environ.get(SUMMARY_ENV) if summary is None else None
    if html is None and summary is None and not step_summary:
        return []
    from filon.goldens.verdict import lang as language
    from filon.goldens.verdict import share_html, share_md
    from filon.goldens.verdict.files import write_atomic
    from filon.goldens.verdict.share import gather
    from filon.miner.core import messages

    shared = gather(report, str(report_path))
    lang = language.current()
    said: list[tuple[str, bool]] = []

    def tell(code: str, failed: bool = False, **params: object) -> None:
        said.append((messages.said(code, **params).render(lang), failed))

    if html is not None:
        try:
            write_atomic(html, share_html.render(shared, lang))
            tell("console.html_written", path=html)
        except OSError as exc:
            tell("console.not_written", True, what=f"--html {html}", why=exc.strerror or exc)
    markdown = None
    if summary is not None or step_summary:
        markdown = share_md.render(shared, lang)
    if summary is not None and markdown is not None:
        try:
            write_atomic(summary, markdown)
            tell("console.markdown_written", path=summary)
        except OSError as exc:
            tell("console.not_written", True, what=f"--summary {summary}", why=exc.strerror or exc)
    elif step_summary and markdown is not None:
        try:
            with Path(step_summary).open("a", encoding="utf-8") as out:  # the job's summary grows by steps
                out.write(markdown)
            tell("console.markdown_written", path=f"${SUMMARY_ENV}")
        except OSError as exc:
            tell("console.not_written", True, what=f"${SUMMARY_ENV} {step_summary}", why=exc.strerror or exc)
    return said
