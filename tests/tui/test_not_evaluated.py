"""The review TUI says, under a turn, where production could not hold it to `fait_non_fonde` (a tool
result the stack did not record), as `filon traces show` does."""

from __future__ import annotations

from pathlib import Path

import pytest
from textual.widgets import Static

from filon.miner.store import Store
from filon.tracing.ingest import Ingestor
from tests.tui.conftest import settle
from tests.tui.data import turn


def texts(app) -> str:  # type: ignore[no-untyped-def]
    return "\n".join(str(w.render()) for w in app.screen.query(Static))


@pytest.mark.parametrize("production", [True, False])
async def test_a_turn_after_an_unrecorded_result_is_said_not_evaluated(
    make_app, store: Store, tmp_path: Path, monkeypatch: pytest.MonkeyPatch, production: bool
) -> None:  # type: ignore[no-untyped-def]
    monkeypatch.chdir(tmp_path)
    rules = "" if production else "[rules.fait_non_fonde]\nproduction = false\n"  # on by default
    (tmp_path / "filon.toml").write_text(rules, encoding="utf-8")
    spans = turn(
        "web:unrecorded",
        "Où est mon colis LL-10562 ?",
        "Votre colis est bloqué au hub de Marseille.",
        [("suivre_colis", {"numero": "LL-10562"}, None)],
        90,
    )
    del spans[1].attributes["gen_ai.tool.call.result"]  # the stack recorded the call, not its result
    Ingestor(store, sample_rate=1.0).ingest(spans)
    app = make_app(conversation="web:unrecorded")
    async with app.run_test(size=(120, 36)) as pilot:
        await settle(pilot)
        shown = texts(app)
        assert "Votre colis est bloqué au hub de Marseille." in shown
        said = "fait_non_fonde not evaluated: the result of suivre_colis was not recorded"
        assert (said in shown) is production
