"""Nothing from a trace reaches a terminal raw: `filon traces show` and the TUI render one conversation
through the same functions (`miner/core/render.py`), and every kind of control sequence shows as an escape."""

from __future__ import annotations

import pytest
from textual.widgets import Collapsible, Static
from typer.testing import CliRunner

from filon.cli import app as cli
from filon.miner.store import Store
from filon.tracing.ingest import Ingestor
from tests.tui.conftest import settle
from tests.tui.data import turn

SEQUENCES = {
    "CSI colour": "\x1b[31m",
    "clear screen": "\x1b[2J",
    "OSC window title": "\x1b]0;pwned\x07",
    "C1 CSI": "\x9b31m",
    "carriage return": "\rOVERWRITE",
    "backspace": "abc\x08\x08",
    "bidi override": "\u202eevil\u202c",
    "bidi isolate": "\u2066x\u2069",
}
RAW = ("\x1b", "\x9b", "\x07", "\r", "\x08", "\u202e", "\u202c", "\u2066", "\u2069")
TOOL = "[bold red]outil[/]"


def nasty(store: Store, name: str, sequence: str) -> str:
    cid = f"web:nasty-{abs(hash(name)) % 10_000}"
    tools = [(TOOL + sequence, {"q": sequence}, {"r": sequence})]
    Ingestor(store).ingest(turn(cid, f"client {sequence} fin", f"agent {sequence} fin", tools, 50))
    return cid


@pytest.mark.parametrize("name", list(SEQUENCES))
def test_traces_show_makes_each_sequence_visible(name: str, db_url: str) -> None:
    cid = nasty(Store.open(db_url), name, SEQUENCES[name])
    result = CliRunner().invoke(cli, ["traces", "show", cid])
    assert result.exit_code == 0, result.output
    assert not any(raw in result.stdout for raw in RAW), repr(result.stdout)
    assert TOOL in result.stdout  # markup from a trace stays text
    visible = SEQUENCES[name].encode("unicode_escape").decode("ascii")
    assert visible.split("\\")[1][:3] in result.stdout.replace("\n", "")


@pytest.mark.parametrize("name", list(SEQUENCES))
async def test_the_tui_makes_each_sequence_visible(name: str, make_app, store: Store) -> None:  # type: ignore[no-untyped-def]
    cid = nasty(store, name, SEQUENCES[name])
    app = make_app(conversation=cid)
    async with app.run_test(size=(120, 40)) as pilot:
        await settle(pilot)
        shown = [str(w.render()) for w in app.screen.query(Static)]
        titles = [str(c.query_one("CollapsibleTitle").render()) for c in app.screen.query(Collapsible)]
        everything = "\n".join(shown + titles)
        assert "client" in everything and "agent" in everything
        assert not any(raw in everything for raw in RAW), repr(everything)
        assert any(TOOL in t for t in titles), titles  # the Collapsible's markup title shows it literally


def test_a_long_tool_result_is_cut_and_says_so() -> None:
    from filon.miner.core.model import ToolCall
    from filon.miner.core.render import tool_summary

    _, result = tool_summary(ToolCall("consulter_commande", {}, {"articles": "x" * 1000}), width=40)
    assert result.plain.endswith("…") and len(result.plain) == len("  → ") + 40
