"""The foreign slice of `flag_precision.py`: conversations of an agent that is not the shop, recorded from
real stacks (`bench/foreign_labels.json` names the fixtures and holds the labels, written by hand), read
by `filon ingest` into a fresh store under the defaults an agent that is not the shop has (no filon.toml:
no `identity_required`, no help sources), and compared with the flags the store holds."""

from __future__ import annotations

import json
import os
import tempfile
from pathlib import Path

from _flag_corpus import Labelled

HERE = Path(__file__).resolve().parent
FIXTURES = HERE.parent / "tests" / "tracing" / "fixtures"
LABELS = HERE / "foreign_labels.json"


def foreign_corpus() -> tuple[list[Labelled], set[str]]:
    """The labelled conversations, and the ids of those whose only customer asked about their own order."""
    from typer.testing import CliRunner

    from filon.cli import app
    from filon.miner.store import Store

    spec = json.loads(LABELS.read_text(encoding="utf-8"))
    out: list[Labelled] = []
    own: set[str] = set()
    here = Path.cwd()
    for fixture in spec["fixtures"]:
        with tempfile.TemporaryDirectory() as folder:
            saved = os.environ.get("FILON_DB")
            os.environ["FILON_DB"] = f"sqlite:///{folder}/foreign.db"
            os.chdir(folder)  # away from this project's [tool.filon] (the shop's own rules)
            try:
                said = CliRunner().invoke(app, ["ingest", str(FIXTURES / fixture), "--sample-rate", "1"])
                if said.exit_code != 0:
                    raise SystemExit(f"{fixture}: ingest failed: {said.output}")
                store = Store.open()
                for cid in (c.conversation_id for c in store.traces.list_conversations(limit=1000)):
                    suffix = cid.split("-", 1)[1]
                    found = store.traces.conversation_detail(cid)
                    assert found is not None
                    conv = Labelled(cid, "foreign", [])
                    conv.expected = {(k, c) for k, c in spec["labels"][suffix]}
                    conv.flagged = {
                        (f.kind, "transferred" if f.cause == "transfer_asked" else f.cause) for f in found[2]
                    }
                    out.append(conv)
                    if suffix in spec["own_order_only"]:
                        own.add(cid)
                store.close()
            finally:
                os.chdir(here)
                if saved is None:
                    os.environ.pop("FILON_DB", None)
                else:
                    os.environ["FILON_DB"] = saved
    return out, own
