"""Charts as inline SVG: a page that needs no script, no network and no font to read them.

Two drawings serve the shared report: lines of percentages over the runs (one line per prompt, or per
category), with the threshold dashed; and horizontal bars of a rate per name. Every label is escaped
here: a category or a prompt name is text someone typed. Colours come from one palette chosen to stay
apart for the common colour-vision deficiencies (Okabe-Ito); each line also carries its name in the
legend and on its last point, so colour is never the only cue.
"""

from __future__ import annotations

from collections.abc import Sequence
from html import escape

PALETTE = ("#0072B2", "#D55E00", "#009E73", "#CC79A7", "#E69F00", "#56B4E9", "#000000", "#F0E442")
WIDTH, HEIGHT = 720, 260
LEFT, RIGHT, TOP, BOTTOM = 44, 150, 16, 40


def _y(value: float) -> float:
    return TOP + (HEIGHT - TOP - BOTTOM) * (1 - value / 100)


def _x(index: int, count: int) -> float:
    span = WIDTH - LEFT - RIGHT
    return LEFT + (span * index / (count - 1) if count > 1 else span / 2)


def lines(
    title: str,
    labels: Sequence[str],
    series: dict[str, list[float | None]],
    threshold: float | None = None,
) -> str:
    """Percentages (0-100) over `labels` (oldest left), one polyline per series; a missing value breaks the
    line. `threshold`, a percentage drawn dashed."""
    count = len(labels)
    parts = [
        f'<svg xmlns="http://www.w3.org/2000/svg" role="img" viewBox="0 0 {WIDTH} {HEIGHT}" '
        f'width="{WIDTH}" height="{HEIGHT}" aria-label="{escape(title)}">',
        f"<title>{escape(title)}</title>",
    ]
    for tick in (0, 25, 50, 75, 100):
        y = _y(tick)
        parts.append(f'<line x1="{LEFT}" y1="{y:.1f}" x2="{WIDTH - RIGHT}" y2="{y:.1f}" stroke="#ddd"/>')
        parts.append(f'<text x="{LEFT - 6}" y="{y + 4:.1f}" text-anchor="end" font-size="11">{tick}%</text>')
    if threshold is not None:
        y = _y(threshold)
        parts.append(
            f'<line class="threshold" x1="{LEFT}" y1="{y:.1f}" x2="{WIDTH - RIGHT}" y2="{y:.1f}" '
            'stroke="#b00" stroke-dasharray="6 4"/>'
        )
    step = max(1, count // 6)
    for i in range(0, count, step):
        parts.append(
            f'<text x="{_x(i, count):.1f}" y="{HEIGHT - BOTTOM + 16}" text-anchor="middle" font-size="10">'
            f"{escape(labels[i])}</text>"
        )
    parts += _legend(series)
    for n, values in enumerate(series.values()):
        colour = PALETTE[n % len(PALETTE)]
        runs: list[list[tuple[float, float]]] = [[]]
        for i, v in enumerate(values):
            if v is None:
                runs.append([])
            else:
                runs[-1].append((_x(i, count), _y(v)))
        for run in (r for r in runs if r):
            points = " ".join(f"{x:.1f},{y:.1f}" for x, y in run)
            if len(run) > 1:
                parts.append(
                    f'<polyline class="series" fill="none" stroke="{colour}" stroke-width="2" points="{points}"/>'
                )
            for x, y in run:
                parts.append(f'<circle cx="{x:.1f}" cy="{y:.1f}" r="3" fill="{colour}"/>')
    parts.append("</svg>")
    return "".join(parts)


def _legend(series: dict[str, list[float | None]]) -> list[str]:
    """Each series' name and last value at the right, level with its last point where room allows: the
    labels are pushed apart (13 px at least), so two lines ending on one value stay readable."""
    wanted = []
    for n, (name, values) in enumerate(series.items()):
        last = next((v for v in reversed(values) if v is not None), None)
        if last is not None:
            wanted.append((_y(last) + 4, n, name, last))
    wanted.sort()
    ys: list[float] = []
    for y, *_ in wanted:
        ys.append(max(y, ys[-1] + 13 if ys else 0.0))
    over = max(0.0, (ys[-1] if ys else 0.0) - (HEIGHT - 4))  # the lowest label inside the drawing
    placed: list[str] = []
    for y, (_, n, name, last) in zip(ys, wanted, strict=True):
        y = max(TOP, y - over)
        placed.append(
            f'<text class="legend" x="{WIDTH - RIGHT + 8}" y="{y:.1f}" font-size="11" '
            f'fill="{PALETTE[n % len(PALETTE)]}">{escape(_short(name))} {last:.0f}%</text>'
        )
    return placed


def bars(title: str, rates: dict[str, tuple[int, int]], marked: Sequence[str] = ()) -> str:
    """One horizontal bar per name: passed/valid as a share of the width; names in `marked` in bold (the
    blocking categories)."""
    row = 22
    height = TOP + row * max(1, len(rates)) + 8
    label_w, bar_w = 180, WIDTH - 180 - 90
    parts = [
        f'<svg xmlns="http://www.w3.org/2000/svg" role="img" viewBox="0 0 {WIDTH} {height}" '
        f'width="{WIDTH}" height="{height}" aria-label="{escape(title)}">',
        f"<title>{escape(title)}</title>",
    ]
    for i, (name, (passed, valid)) in enumerate(rates.items()):
        y = TOP + i * row
        share = passed / valid if valid else 0.0
        colour = PALETTE[2] if valid and passed == valid else PALETTE[1]
        weight = ' font-weight="bold"' if name in marked else ""
        parts.append(
            f'<text x="{label_w - 8}" y="{y + 14}" text-anchor="end" font-size="12"{weight}>'
            f"{escape(_short(name, 26))}</text>"
        )
        parts.append(f'<rect x="{label_w}" y="{y + 3}" width="{bar_w}" height="14" fill="#eee"/>')
        parts.append(
            f'<rect class="bar" x="{label_w}" y="{y + 3}" width="{bar_w * share:.1f}" height="14" '
            f'fill="{colour}"/>'
        )
        figure = f"{share:.0%} ({passed}/{valid})" if valid else "—"
        parts.append(f'<text x="{label_w + bar_w + 6}" y="{y + 14}" font-size="12">{figure}</text>')
    parts.append("</svg>")
    return "".join(parts)


def _short(text: str, most: int = 18) -> str:
    return text if len(text) <= most else text[: most - 1] + "…"
