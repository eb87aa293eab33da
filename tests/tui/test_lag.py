"""The queue says when a deferred receiver has traces it has not read yet (`tracing.settle`): the newest
conversations are then missing from the list, and a reviewer should know it; once read, it says nothing."""

from __future__ import annotations

from textual.widgets import Static

from filon.miner.store import Store
from filon.tracing.files import read_otlp_file
from filon.tracing.ingest import Ingestor
from filon.tracing.settle import accept, settle_all
from tests.corpus import tau
from tests.tui.conftest import settle


async def test_the_queue_shows_traces_not_read_yet_then_nothing(make_app, store: Store) -> None:  # type: ignore[no-untyped-def]
    records = read_otlp_file(tau.payloads()[0])
    ingestor = Ingestor(store)
    accept(ingestor, records)
    traces = len({r.trace_id for r in records})
    app = make_app()
    async with app.run_test(size=(160, 30)) as pilot:
        await settle(pilot)
        line = str(app.screen.query_one("#filters", Static).render())
        assert f"· {traces} trace(s) not read yet, oldest " in line
        settle_all(ingestor)
        await pilot.press("r")
        await settle(pilot)
        line = str(app.screen.query_one("#filters", Static).render())
        assert "not read yet" not in line and "shown" in line
