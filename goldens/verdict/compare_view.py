"""A comparison as the console shows it and as a pull request reads it (Markdown): the verdict first."""

from __future__ import annotations

from filon.goldens.verdict.compare import Comparison
from filon.miner.core.messages import Said, render, said


def _pct(value: float | None) -> str:
    return "—" if value is None else f"{value:.1%}"


def _money(value: float | None) -> str:
    return "—" if value is None else f"{value:.5f} $"


def _ms(value: float | None) -> str:
    return "—" if value is None else f"{value:.0f} ms"


def _delta(a: float | None, b: float | None, fmt: str = "{:+.5f}") -> str:
    return "—" if a is None or b is None else fmt.format(b - a)


def _run(c: Comparison, side: str) -> str:
    r = c.runs["a" if side == "a" else "b"]
    return f"{r.id} · {r.model} ({r.backend}) · {r.prompt} · ×{r.repetitions} · {r.date}"


def _side(key: str) -> str:
    return {"a_seulement": "A", "b_seulement": "B"}.get(key, key)


def headline(c: Comparison, lang: str = "fr") -> str:
    verdict = said(f"compare.verdict_word.{c.verdict}")
    return said("compare.verdict", verdict=verdict, reason=c.reason).render(lang)


def console_lines(c: Comparison, lang: str = "fr") -> list[str]:
    """The comparison on the console, in French (the default) or English."""
    out: list[Said | str] = [
        said("compare.run", side="A", run=_run(c, "a")),
        said("compare.run", side="B", run=_run(c, "b")),
    ]
    if c.missing:
        out.append("")
        for side, ids in c.missing.items():
            if ids:
                out.append(said("compare.only_in", side=_side(side), ids=", ".join(ids)))
        out.append(said("compare.run_again"))
        return [*_said(out, lang), headline(c, lang)]
    return [*_said(out, lang), "", *_said(_changes(c), lang), headline(c, lang)]


def _said(lines: list[Said | str], lang: str) -> list[str]:
    return [render(line, lang) for line in lines]


def _score(c: Comparison) -> dict[str, str]:
    """The scores, their difference and its interval, as the console and the summary show them."""
    low, high = c.interval or (None, None)
    delta = _delta(c.score_a, c.score_b, "{:+.1%}")
    return {"a": _pct(c.score_a), "b": _pct(c.score_b), "delta": delta, "low": _pct(low), "high": _pct(high)}


def _latency(c: Comparison) -> dict[str, str]:
    return {k: _ms(c.latency.get(k)) for k in ("p50_a", "p50_b", "p95_a", "p95_b")}


def _changes(c: Comparison) -> list[Said | str]:
    """What moved between the runs: the cases, then the figures."""
    out: list[Said | str] = []
    for case in c.cases:
        if case.rate_a != case.rate_b:
            mark = "▼" if case.rate_b < case.rate_a else "▲"
            out.append(
                f"{mark} {case.id:<12} {case.category:<10} A {case.passed_a}/{case.valid_a}  "
                f"B {case.passed_b}/{case.valid_b}"
            )
    if c.modified:
        out.append(said("compare.modified", ids=", ".join(c.modified)))
    if c.excluded:
        out.append(said("compare.excluded", ids=", ".join(c.excluded)))
    out.append(said("compare.new_failures", ids=", ".join(c.newly_failing()) or said("compare.none_m")))
    out.append(said("compare.new_passes", ids=", ".join(c.newly_fixed()) or said("compare.none_f")))
    cats = ", ".join(f"{k} {_pct(v['a'])} → {_pct(v['b'])}" for k, v in c.categories.items())
    out.append(said("console.by_category", categories=cats))
    b_only, c_only = c.discordants
    score, latency = _score(c), _latency(c)
    out.append(said("compare.score", method=c.method, **score))
    if c.p_value is not None:
        out.append(said("compare.mcnemar", a_only=b_only, b_only=c_only, p=c.p_value))
    a, b = c.cost.get("a"), c.cost.get("b")
    out.append(said("compare.cost", a=_money(a), b=_money(b), delta=_delta(a, b)))
    out.append(said("compare.latency", **latency))
    if c.too_small:
        out.append(said("compare.beware", why=c.too_small))
    return out


def markdown(c: Comparison, lang: str = "fr") -> str:
    """The pull request's summary, in French (the default) or English: the verdict first, then what
    changed, cost and latency."""
    icon = {"pas pire": "✅", "pire": "❌"}.get(c.verdict, "⚠️")
    verdict = said(f"compare.md_verdict.{c.verdict}")
    out: list[Said | str] = [
        said("compare.md_title", icon=icon, verdict=verdict),
        "",
        said("compare.md_bold", text=c.reason),
        "",
    ]
    out += [
        said("compare.md_run", side="A", run=_run(c, "a")),
        said("compare.md_run", side="B", run=_run(c, "b")),
        "",
    ]
    if c.missing:
        for key, ids in c.missing.items():
            if ids:
                out.append(said("compare.md_only_in", side=_side(key), ids=", ".join(ids)))
        return "\n".join(_said(out, lang)) + "\n"
    changed = [case for case in c.cases if case.rate_a != case.rate_b]
    if changed:
        out += [said("compare.md_table_head"), "|---|---|---|---|"]
        out += [
            f"| {x.id} | {x.category} | {x.passed_a}/{x.valid_a} | {x.passed_b}/{x.valid_b} |"
            for x in changed
        ]
    else:
        out.append(said("compare.md_none_changed"))
    out += [
        "",
        said("compare.md_score", **_score(c)),
        said("compare.md_mcnemar", p=f"{c.p_value:.3g}" if c.p_value is not None else "—"),
        said("compare.md_cost", a=_money(c.cost.get("a")), b=_money(c.cost.get("b"))),
        said("compare.md_latency", **_latency(c)),
    ]
    if c.modified:
        out.append(said("compare.md_modified", ids=", ".join(c.modified)))
    if c.too_small:
        out.append(said("compare.md_beware", why=c.too_small))
    return "\n".join(_said(out, lang)) + "\n"
