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


def publish(report: EvalReport, report_path: Path, html: Path | None, summary: Path | None) -> list[str]:
    """Write the page and the summary asked for; returns the lines to print (what was written, or why
    not)."""
    step_summary = os.environ.get(SUMMARY_ENV) if summary is None else None
    if html is None and summary is None and not step_summary:
        return []
    from filon.goldens.verdict import lang as language
    from filon.goldens.verdict import share_html, share_md
    from filon.goldens.verdict.files import write_atomic
    from filon.goldens.verdict.share import gather

    shared = gather(report, str(report_path))
    lang = language.current()
    said: list[str] = []
    if html is not None:
        try:
            write_atomic(html, share_html.render(shared, lang))
            said.append(f"HTML: {html}")
        except OSError as exc:
            said.append(f"--html {html}: not written ({exc.strerror or exc})")
    markdown = None
    if summary is not None or step_summary:
        markdown = share_md.render(shared, lang)
    if summary is not None and markdown is not None:
        try:
            write_atomic(summary, markdown)
            said.append(f"Markdown: {summary}")
        except OSError as exc:
            said.append(f"--summary {summary}: not written ({exc.strerror or exc})")
    elif step_summary and markdown is not None:
        try:
            with Path(step_summary).open("a", encoding="utf-8") as out:  # the job's summary grows by steps
                out.write(markdown)
            said.append(f"Markdown: ${SUMMARY_ENV}")
        except OSError as exc:
            said.append(f"${SUMMARY_ENV} {step_summary}: not written ({exc.strerror or exc})")
    return said
