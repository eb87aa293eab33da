"""A comparison as the console shows it and as a pull request reads it (Markdown): the verdict first."""

from __future__ import annotations

from filon.goldens.verdict.compare import Comparison


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
    return {"a_seulement": "Seulement dans A", "b_seulement": "Seulement dans B"}.get(key, key)


def headline(c: Comparison) -> str:
    return f"Verdict : {c.verdict.upper()} — {c.reason}"


def console_lines(c: Comparison) -> list[str]:
    out = [f"A : {_run(c, 'a')}", f"B : {_run(c, 'b')}", ""]
    if c.missing:
        for side, ids in c.missing.items():
            if ids:
                out.append(f"{_side(side)} : {', '.join(ids)}")
        out.append("Relancez les deux runs sur le même jeu de cas (mêmes --goldens et --ids).")
        return [*out, headline(c)]
    for case in c.cases:
        if case.rate_a != case.rate_b:
            mark = "▼" if case.rate_b < case.rate_a else "▲"
            out.append(
                f"{mark} {case.id:<12} {case.category:<10} A {case.passed_a}/{case.valid_a}  "
                f"B {case.passed_b}/{case.valid_b}"
            )
    if c.modified:
        out.append(f"Cas modifiés entre les deux runs, laissés de côté : {', '.join(c.modified)}")
    if c.excluded:
        out.append(f"Sans tentative valide d'un côté, laissés de côté : {', '.join(c.excluded)}")
    out.append(f"Nouveaux échecs : {', '.join(c.newly_failing()) or 'aucun'}")
    out.append(f"Nouvelles réussites : {', '.join(c.newly_fixed()) or 'aucune'}")
    cats = ", ".join(f"{k} {_pct(v['a'])} → {_pct(v['b'])}" for k, v in c.categories.items())
    out.append(f"Par catégorie : {cats}")
    b_only, c_only = c.discordants
    low, high = c.interval or (None, None)
    out.append(
        f"Score : A {_pct(c.score_a)} · B {_pct(c.score_b)} · écart {_delta(c.score_a, c.score_b, '{:+.1%}')} "
        f"(IC 95 % {_pct(low)} à {_pct(high)}, {c.method})"
    )
    if c.p_value is not None:
        out.append(
            f"McNemar exact : {b_only} réussi(s) sur A seulement, {c_only} sur B seulement, p = {c.p_value:.3g}"
        )
    out.append(
        f"Coût : A {_money(c.cost.get('a'))} · B {_money(c.cost.get('b'))} · écart {_delta(c.cost.get('a'), c.cost.get('b'))} $"
    )
    lat = c.latency
    out.append(
        f"Latence par tour : p50 {_ms(lat.get('p50_a'))} → {_ms(lat.get('p50_b'))}, "
        f"p95 {_ms(lat.get('p95_a'))} → {_ms(lat.get('p95_b'))}"
    )
    if c.too_small:
        out.append(f"Attention : {c.too_small}")
    return [*out, headline(c)]


def markdown(c: Comparison) -> str:
    """The pull request's summary: the verdict first, then what changed, cost and latency."""
    icon = {"pas pire": "✅", "pire": "❌"}.get(c.verdict, "⚠️")
    lines = [f"## {icon} filon : B {c.verdict} que A", "", f"**{c.reason}**", ""]
    lines += [f"- A : `{_run(c, 'a')}`", f"- B : `{_run(c, 'b')}`", ""]
    if c.missing:
        for side, ids in c.missing.items():
            if ids:
                lines.append(f"- {_side(side)} : {', '.join(ids)}")
        return "\n".join(lines) + "\n"
    changed = [case for case in c.cases if case.rate_a != case.rate_b]
    if changed:
        lines += ["| cas | catégorie | A | B |", "|---|---|---|---|"]
        lines += [
            f"| {x.id} | {x.category} | {x.passed_a}/{x.valid_a} | {x.passed_b}/{x.valid_b} |"
            for x in changed
        ]
    else:
        lines.append("Aucun cas n'a changé de résultat.")
    low, high = c.interval or (None, None)
    lines += [
        "",
        f"- Score : A {_pct(c.score_a)} · B {_pct(c.score_b)} · écart "
        f"{_delta(c.score_a, c.score_b, '{:+.1%}')} (IC 95 % {_pct(low)} à {_pct(high)})",
        f"- McNemar exact : p = {c.p_value:.3g}" if c.p_value is not None else "- McNemar exact : —",
        f"- Coût : A {_money(c.cost.get('a'))} · B {_money(c.cost.get('b'))}",
        f"- Latence p50 / p95 par tour : A {_ms(c.latency.get('p50_a'))} / {_ms(c.latency.get('p95_a'))} · "
        f"B {_ms(c.latency.get('p50_b'))} / {_ms(c.latency.get('p95_b'))}",
    ]
    if c.modified:
        lines.append(f"- Cas modifiés entre les runs, laissés de côté : {', '.join(c.modified)}")
    if c.too_small:
        lines.append(f"- ⚠️ {c.too_small}")
    return "\n".join(lines) + "\n"
