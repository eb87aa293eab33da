"""`filon eval --summary PATH`: the shared report as Markdown, for a CI job's summary
(`$GITHUB_STEP_SUMMARY`) or a pull request's comment.

The same parts as the page, in what a job summary renders: tables, and the score over the runs as a row
of block characters per prompt (a summary shows no SVG). Text from traces is escaped for Markdown and
for the HTML a summary also renders: `<`, `>` and `&` as entities, Markdown's punctuation behind a
backslash, a line break as a space, so nothing a model wrote can open a tag, a link or a table cell.
"""

from __future__ import annotations

import re
from collections.abc import Callable

from filon.goldens.verdict.share import Shared, colon, prompt_shown, shown_command, word
from filon.goldens.verdict.worst import blocking_names

BLOCKS = "▁▂▃▄▅▆▇█"
_SPECIAL = re.compile(r"([\\`*_{}\[\]|~])")  # what opens emphasis, code, a link or a cell anywhere
_LEADING = re.compile(r"^([#+\-!])")  # what opens a heading or a list at a line's start
_NUMBERED = re.compile(r"^(\d+)([.)])")  # « 1. » opens a numbered list


def md(text: object) -> str:
    """Text as Markdown shows it literally, on one line."""
    plain = " ".join(str(text).split())
    plain = plain.replace("&", "&amp;").replace("<", "&lt;").replace(">", "&gt;")
    escaped = _LEADING.sub(r"\\\1", _SPECIAL.sub(r"\\\1", plain))
    return _NUMBERED.sub(r"\1\\\2", escaped)


def code(text: object) -> str:
    """Inline code (where `<` is text already): the longest run of backticks inside decides the fence."""
    plain = " ".join(str(text).split()).replace("|", "\\|")  # | would end a table's cell
    fence = "`" * (max((len(r) for r in re.findall(r"`+", plain)), default=0) + 1)
    return f"{fence} {plain} {fence}"


def spark(values: list[float | None]) -> str:
    return "".join(" " if v is None else BLOCKS[min(7, int(v / 100 * 8))] for v in values)


def render(shared: Shared, lang: str) -> str:

    def say(text: str) -> str:  # a sentence of the report, through the code it keeps beside it
        return shared.report.say(text, lang)

    report = shared.report
    decision = report.gate.decision
    said = {"réussi": "passed", "échoué": "failed", "non concluant": "inconclusive"}.get(decision)
    mark = "✅" if decision == "réussi" else "❌" if decision == "échoué" else "⚠️"
    score = "—" if report.score is None else f"{report.score:.0%}"
    numbers = report.gate.figures
    out = [
        f"## {mark} {md(word('title', lang))} {md(report.execution.id)}: "
        f"{md(word(said, lang) if said else decision)}",
        "",
        f"**{md(word('score', lang))} {score}** ({numbers.passed}/{numbers.valid}) · "
        f"{md(word('threshold', lang))} {report.threshold:.0%} · {md(report.model.name)}"
        + (f" · {md(prompt_shown(shared))}" if prompt_shown(shared) else ""),
        "",
        f"{md(word('rule', lang))}{colon(lang)}{md(say(report.gate.rule))}",
        "",
    ]
    if report.model.stand_in:
        out += [f"> {md(word('stand_in', lang))}", ""]
    return (
        "\n".join(out + _runs(shared, lang) + _worst(shared, lang, say) + _rules_and_coverage(shared, lang))
        + "\n"
    )


def _runs(shared: Shared, lang: str) -> list[str]:
    report = shared.report
    out = [f"### {md(word('over_runs', lang))}", "", "| prompt | runs | score |", "|---|---|---|"]
    for prompt in shared.prompts():
        values = [None if r.prompt != prompt or r.score is None else r.score * 100 for r in shared.runs]
        last = next((v for v in reversed(values) if v is not None), None)
        shown = "—" if last is None else f"{last:.0f}%"
        out.append(f"| {md(prompt)} | `{spark(values)}` | {shown} |")
    if shared.history_note:
        out += ["", md(shared.history_note)]
    out += [
        "",
        f"### {md(word('by_category', lang))}",
        "",
        f"| {md(word('category', lang))} | | |",
        "|---|---|---|",
    ]
    for name, c in report.categories.items():
        rate = f"{c.passed / c.valid:.0%}" if c.valid else "—"
        tag = f" ({md(word('blocking', lang))})" if name in report.blocking else ""
        out.append(f"| {md(name)}{tag} | {rate} | {c.passed}/{c.valid} |")
    return out


def _worst(shared: Shared, lang: str, say: Callable[[str], str]) -> list[str]:
    out = ["", f"### {md(word('worst', lang))}", ""]
    if not shared.worst:
        out.append(md(word("worst_none", lang)))
    for rank, shown_attempt in enumerate(shared.worst, 1):
        w = shown_attempt.worst
        state = word("ok", lang) if w.status == "ok" else f"{len(w.gaps)} {word('gaps', lang)}"
        blocking = (
            f" · **{md(word('blocking', lang))}**{colon(lang)}{md(blocking_names(w.blocking, lang))}"
            if w.blocking
            else ""
        )
        out.append(
            f"{rank}. **{md(w.case)}** ({md(word('attempt', lang))} {w.attempt}){blocking} · {md(state)}"
        )
        out += [f"   - {md(say(gap))}" for gap in w.gaps[:5]]
        out.append(f"   - {code(shown_command(w.command, lang))}")
    return out


def _rules_and_coverage(shared: Shared, lang: str) -> list[str]:
    report = shared.report
    out = ["", f"### {md(word('rules', lang))}", ""]
    broken = report.gate.blocking_rules
    if broken:
        out += [
            f"- `{name}` {md(word('broke', lang))} {md(', '.join(cases))}" for name, cases in broken.items()
        ]
    else:
        out.append(md(word("rules_none", lang)))
    for category, cases in report.gate.blocking_failures.items():
        out.append(
            f"- {md(word('blocking_failed', lang))}{colon(lang)}**{md(category)}** ({md(', '.join(cases))})"
        )
    out += ["", f"### {md(word('coverage', lang))}", ""]
    cov = report.coverage
    if cov is None:
        out.append(md(word("coverage_none", lang)))
    else:
        out += [
            f"**{cov.part:.0%}** ({cov.covered}/{cov.conversations} {md(word('size', lang))})",
            "",
            f"| {md(word('signature', lang))} | {md(word('size', lang))} | |",
            "|---|---|---|",
        ]
        for g in cov.groups:
            cell = (
                f"{md(word('covered_by', lang))} {md(', '.join(g.cases))}"
                if g.cases
                else (f"**{md(word('uncovered', lang))}** {code('filon draft ' + g.example)}")
            )
            out.append(f"| {code(g.signature)} | {g.size} | {cell} |")
    return out
