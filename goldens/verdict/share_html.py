"""`filon eval --html PATH`: one self-contained page to paste into a pull request or a chat.

No script, no network, no external font or stylesheet: the charts are inline SVG (`share_svg`), the
turns fold with `<details>`, and the page opens the same from a mail attachment as from CI's artefacts.
Everything that came from a trace or a model is escaped with `html.escape` (quotes included): an answer
holding `<script>` is text on the page.
"""

from __future__ import annotations

import json
from collections.abc import Callable
from html import escape
from typing import Any

from filon.goldens.verdict import share_svg
from filon.goldens.verdict.share import (
    Shared,
    WorstShown,
    backend_shown,
    colon,
    prompt_shown,
    shown_command,
    word,
)
from filon.goldens.verdict.worst import blocking_names

STYLE = """
body{font:14px/1.45 system-ui,-apple-system,"Segoe UI",sans-serif;max-width:980px;margin:24px auto;
padding:0 16px;color:#1b1b1b}
h1{font-size:22px;margin:0 0 4px}h2{font-size:17px;margin:28px 0 8px;border-bottom:1px solid #ddd}
.badge{display:inline-block;padding:2px 10px;border-radius:10px;color:#fff;font-weight:600}
.réussi,.passed{background:#1a7f37}.échoué,.failed{background:#b00020}.other{background:#8a6d00}
.meta{color:#555}.warn{background:#fff4ce;padding:6px 10px;border-left:4px solid #e69f00}
table{border-collapse:collapse;margin:6px 0}td,th{padding:3px 10px;border-bottom:1px solid #eee;
text-align:left;vertical-align:top}code,pre{font:12px/1.4 ui-monospace,Menlo,Consolas,monospace}
pre{white-space:pre-wrap;word-break:break-word;background:#f6f8fa;padding:6px;margin:4px 0}
.gap{color:#b00020}.turn{margin:6px 0 10px 12px}.who{font-weight:600}
"""


def _e(text: object) -> str:
    return escape(str(text), quote=True)


def _json(value: Any, most: int = 400) -> str:
    text = value if isinstance(value, str) else json.dumps(value, ensure_ascii=False, default=str)
    return text if len(text) <= most else text[: most - 1] + "…"


def render(shared: Shared, lang: str) -> str:
    """The page, as one string of HTML."""

    def say(text: str) -> str:  # a sentence of the report, through the code it keeps beside it
        return shared.report.say(text, lang)

    report = shared.report
    decision = report.gate.decision
    kind = "passed" if decision == "réussi" else "failed" if decision == "échoué" else "other"
    said = {"réussi": "passed", "échoué": "failed", "non concluant": "inconclusive"}.get(decision)
    shown = word(said, lang) if said else decision
    score = "—" if report.score is None else f"{report.score:.0%}"
    title = f"{word('title', lang)} {report.execution.id}"
    body = [
        f"<h1>{_e(title)} <span class='badge {kind}' id='decision'>{_e(shown)}</span></h1>",
        f"<p class='meta'>{_e(word('score', lang))} <b id='score'>{_e(score)}</b> "
        f"({report.gate.figures.passed}/{report.gate.figures.valid}) · "
        f"{_e(word('threshold', lang))} {report.threshold:.0%} · {_e(report.model.name)} ({_e(backend_shown(report.model.backend, lang))})"
        f"{' · ' + _e(prompt_shown(shared)) if prompt_shown(shared) else ''}"
        f" · {_e(report.execution.started[:16].replace('T', ' '))} UTC</p>",
        f"<p>{_e(word('rule', lang))}{colon(lang)}{_e(say(report.gate.rule))}</p>",
    ]
    if report.model.stand_in:
        body.append(f"<p class='warn'>{_e(word('stand_in', lang))}</p>")
    body += _over_runs(shared, lang)
    body += _categories(shared, lang)
    body += _worst(shared, lang, say)
    body += _rules(shared, lang)
    body += _coverage(shared, lang)
    return (
        f"<!doctype html>\n<html lang='{_e(lang)}'><head><meta charset='utf-8'>"
        "<meta name='viewport' content='width=device-width, initial-scale=1'>"
        f"<title>{_e(title)}</title><style>{STYLE}</style></head>\n<body>\n"
        + "\n".join(body)
        + "\n</body></html>\n"
    )


def _label(shared: Shared, index: int) -> str:
    return shared.runs[index].started_at.strftime("%m-%d %H:%M")


def _over_runs(shared: Shared, lang: str) -> list[str]:
    out = [f"<h2 id='runs'>{_e(word('over_runs', lang))}</h2>"]
    series = {
        p: [None if r.prompt != p or r.score is None else r.score * 100 for r in shared.runs]
        for p in shared.prompts()
    }
    labels = [_label(shared, i) for i in range(len(shared.runs))]
    out.append(share_svg.lines(word("over_runs", lang), labels, series, shared.report.threshold * 100))
    if len(shared.runs) < 2:
        out.append(f"<p class='meta'>{_e(word('one_run', lang))}</p>")
    if shared.history_note:
        out.append(f"<p class='meta'>{_e(shared.history_note)}</p>")
    return out


def _categories(shared: Shared, lang: str) -> list[str]:
    report = shared.report
    rates = {name: (c.passed, c.valid) for name, c in report.categories.items()}
    out = [
        f"<h2 id='categories'>{_e(word('by_category', lang))}</h2>",
        share_svg.bars(word("by_category", lang), rates, report.blocking),
    ]
    mine = [r for r in shared.runs if r.prompt == shared.this_prompt]
    if len(mine) > 1:
        series: dict[str, list[float | None]] = {}
        for name in shared.categories():
            series[name] = [
                (r.categories[name][0] / r.categories[name][1] * 100)
                if r.categories.get(name, (0, 0))[1]
                else None
                for r in mine
            ]
        labels = [r.started_at.strftime("%m-%d %H:%M") for r in mine]
        out.append(f"<h3>{_e(word('by_category_runs', lang))}</h3>")
        out.append(share_svg.lines(word("by_category_runs", lang), labels, series))
    return out


def _worst(shared: Shared, lang: str, say: Callable[[str], str]) -> list[str]:
    out = [f"<h2 id='worst'>{_e(word('worst', lang))}</h2>"]
    if not shared.worst:
        return [*out, f"<p>{_e(word('worst_none', lang))}</p>"]
    for rank, shown in enumerate(shared.worst, 1):
        out += _one_worst(rank, shown, lang, say)
    return out


def _one_worst(rank: int, shown: WorstShown, lang: str, say: Callable[[str], str]) -> list[str]:
    w = shown.worst
    state = word("ok", lang) if w.status == "ok" else f"{len(w.gaps)} {word('gaps', lang)}"
    blocking = (
        f" · {_e(word('blocking', lang))}{colon(lang)}{_e(blocking_names(w.blocking, lang))}"
        if w.blocking
        else ""
    )
    out = [
        "<section class='worst'>",
        f"<h3>{rank}. {_e(w.case)} ({_e(word('attempt', lang))} {w.attempt}){blocking} · {_e(state)} · "
        f"{w.duration_ms:.0f} ms</h3>",
    ]
    if w.gaps:
        out.append("<ul>" + "".join(f"<li class='gap'>{_e(say(g))}</li>" for g in w.gaps) + "</ul>")
    out.append(f"<p><code>{_e(shown_command(w.command, lang))}</code></p>")
    turns = shown.attempt.turns if shown.attempt is not None else []
    if not turns:
        out.append(f"<p class='meta'>{_e(word('no_turns', lang))}</p>")
    out.append("<details open><summary>" + _e(f"{len(turns)} {word('turn', lang).lower()}(s)") + "</summary>")
    for n, turn in enumerate(turns, 1):
        out.append(f"<div class='turn'><div class='who'>{_e(word('turn', lang))} {n}</div>")
        out.append(f"<div>{_e(word('customer', lang))} :</div><pre>{_e(turn.user)}</pre>")
        for call in turn.tools:
            outcome = f"✗ {call.error}" if call.error else f"→ {_json(call.result)}"
            out.append(f"<pre class='call'>{_e(call.name)}({_e(_json(call.args or {}))}) {_e(outcome)}</pre>")
        out.append(f"<div>{_e(word('agent', lang))} :</div><pre>{_e(turn.agent)}</pre>")
        if turn.escalated:
            out.append(f"<div class='meta'>{_e(word('escalated', lang))}</div>")
        out.append("</div>")
    out += ["</details>", "</section>"]
    return out


def _rules(shared: Shared, lang: str) -> list[str]:
    report = shared.report
    out = [f"<h2 id='rules'>{_e(word('rules', lang))}</h2>"]
    blocking = {name: r for name, r in report.rules.items() if r.blocking}
    if not blocking and not report.gate.blocking_rules:
        out.append(f"<p>{_e(word('rules_none', lang))}</p>")
    else:
        out.append("<table><tr><th></th><th></th><th></th><th></th></tr>")
        for name in sorted(set(blocking) | set(report.gate.blocking_rules)):
            rule = blocking.get(name)
            broke = report.gate.blocking_rules.get(name, [])
            standing = "" if rule is None else word("decisive" if rule.decisive else "advisory", lang)
            severity = "" if rule is None else rule.severity
            who = f"{word('broke', lang)} {', '.join(broke)}" if broke else "—"
            out.append(
                f"<tr><td><code>{_e(name)}</code></td><td>{_e(severity)}</td><td>{_e(standing)}</td>"
                f"<td class='{'gap' if broke else ''}'>{_e(who)}</td></tr>"
            )
        out.append("</table>")
    if report.gate.blocking_failures:
        out.append(f"<p>{_e(word('blocking_failed', lang))} :</p><ul>")
        for category, failed in report.gate.blocking_failures.items():
            out.append(f"<li class='gap'><b>{_e(category)}</b>{colon(lang)}{_e(', '.join(failed))}</li>")
        out.append("</ul>")
    return out


def _coverage(shared: Shared, lang: str) -> list[str]:
    cov = shared.report.coverage
    out = [f"<h2 id='coverage'>{_e(word('coverage', lang))}</h2>"]
    if cov is None:
        return [*out, f"<p class='meta'>{_e(word('coverage_none', lang))}</p>"]
    out.append(
        f"<p><b>{cov.part:.0%}</b> ({cov.covered}/{cov.conversations} {_e(word('size', lang))}, {cov.days} {_e(word('days', lang))})</p>"
    )
    out.append(
        f"<table><tr><th>{_e(word('signature', lang))}</th><th>{_e(word('size', lang))}</th><th></th></tr>"
    )
    for g in cov.groups:
        if g.cases:
            said = f"{word('covered_by', lang)} {', '.join(g.cases)}"
            cell = _e(said)
        else:
            cell = f"<span class='gap'>{_e(word('uncovered', lang))}</span> · <code>filon draft {_e(g.example)}</code>"
        out.append(f"<tr><td><code>{_e(g.signature)}</code></td><td>{g.size}</td><td>{cell}</td></tr>")
    out.append("</table>")
    return out
