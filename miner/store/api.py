"""`Store`: every read and write of filon's database goes through this one class.

SQLite (WAL) at `FILON_HOME/filon.db` by default (the project's `var/`, see `miner.places`), or any
SQLAlchemy URL in `FILON_DB` (PostgreSQL with `postgresql+psycopg://…`). Opening a store brings its schema
up to date, and tells `opened` which store it is (the CLI names it once on stderr): a new store is never
made silently.
"""

from __future__ import annotations

from collections.abc import Iterator
from contextlib import AbstractContextManager, contextmanager
from dataclasses import dataclass
from datetime import UTC, datetime, timedelta
from pathlib import Path
from typing import Any

from sqlalchemy import Engine, event
from sqlmodel import Session, col, create_engine, select

from filon.miner.core.errors import StoreError as StoreError
from filon.miner.core.messages import said
from filon.miner.places import shown, store_opened, where
from filon.miner.settings import settings
from filon.miner.store.batch import TraceBatch, trace_batch
from filon.miner.store.group_review import GroupReviewStore
from filon.miner.store.groups import GroupStore
from filon.miner.store.incidents import IncidentStore
from filon.miner.store.migrations import migrate
from filon.miner.store.retention import prune
from filon.miner.store.stats import StoreStats, store_stats, waiting
from filon.miner.store.tables import EvalAttemptRow, EvalComparison, EvalRun
from filon.miner.store.traces import TraceStore


def default_db() -> str:
    """The store when FILON_DB is not set: `filon.db` in FILON_HOME (the project's `var/`)."""
    return f"sqlite:///{settings().home_folder() / 'filon.db'}"


def db_url(explicit: str | None = None) -> str:
    """The store's SQLAlchemy URL: a plain path is a SQLite file (made absolute, so that messages name the
    file wherever the command ran), `postgres://` is PostgreSQL (psycopg)."""
    url = explicit or settings().db or default_db()
    if "://" not in url and url != ":memory:":
        url = f"sqlite:///{url}"
    for prefix in ("postgres://", "postgresql://"):
        if url.startswith(prefix):
            return "postgresql+psycopg://" + url.removeprefix(prefix)
    if url.startswith("sqlite:///") and url != "sqlite:///:memory:":
        return f"sqlite:///{Path(url.removeprefix('sqlite:///')).absolute()}"
    return url


def _sqlite_pragmas(engine: Engine) -> None:
    @event.listens_for(engine, "connect")
    def _on_connect(dbapi_conn: Any, _record: Any) -> None:
        cur = dbapi_conn.cursor()
        cur.execute("PRAGMA journal_mode=WAL")
        cur.execute("PRAGMA synchronous=NORMAL")
        cur.execute("PRAGMA foreign_keys=ON")
        cur.execute("PRAGMA busy_timeout=5000")
        cur.close()


@dataclass
class HistoryRow:
    run_id: str
    started_at: datetime
    model: str
    backend: str
    prompt_sha256: str
    score: float | None
    decision: str
    passed: int
    valid: int
    errors: int
    case_status: str | None = None  # with a case id: that case's k/N in the run
    compared: str | None = None  # "vs RUN: verdict" when this run was compared with an earlier one
    prompt_path: str = ""

    def as_json(self) -> dict[str, Any]:
        return {
            "run_id": self.run_id,
            "started_at": self.started_at.isoformat(),
            "model": self.model,
            "backend": self.backend,
            "prompt_sha256": self.prompt_sha256,
            "score": self.score,
            "decision": self.decision,
            "passed": self.passed,
            "valid": self.valid,
            "errors": self.errors,
            "case_status": self.case_status,
            "compared": self.compared,
            "prompt_path": self.prompt_path,
        }


class Store:
    """One store: its repositories as attributes, each its own job (`traces`: conversations and their
    detail; `groups`: the failure groups; `reviews`: claims, verdicts and group reviews; `incidents`), and
    the few whole-store operations (`trace_batch` for ingest, `stats`, `prune`, the eval runs)."""

    def __init__(self, engine: Engine) -> None:
        self.engine = engine
        self.traces = TraceStore(engine)
        self.groups = GroupStore(engine)
        self.reviews = GroupReviewStore(engine)
        self.incidents = IncidentStore(engine)

    def trace_batch(self) -> AbstractContextManager[TraceBatch]:
        """One transaction for a batch of traces (`miner.store.batch`): what ingest writes through."""
        return trace_batch(self.engine)

    def stats(self) -> StoreStats:
        """What the store holds (`db stats`)."""
        return store_stats(self.engine)

    def waiting(self) -> tuple[int, float]:
        """The traces stored but not read yet (a deferred receiver's lag), and the oldest one's wait in
        seconds: one indexed read, for the review TUI's every page."""
        with self.engine.connect() as conn:
            return waiting(conn)

    def prune(
        self, older_than: timedelta, dry_run: bool = False, now: datetime | None = None
    ) -> dict[str, int]:
        """Old unflagged conversations deleted, never one a case was made from (`db prune`)."""
        return prune(self.engine, older_than, dry_run, now)

    @classmethod
    def open(cls, url: str | None = None) -> Store:
        url = db_url(url)
        new = False
        if url.startswith("sqlite:///") and url != "sqlite:///:memory:":
            file = Path(url.removeprefix("sqlite:///"))
            if url != db_url(default_db()) and not file.parent.is_dir():  # a typo would start an empty store
                raise StoreError(
                    said("err.store.no_folder", url=repr(shown(url)), folder=repr(str(file.parent)))
                )
            new = not file.exists()
            file.parent.mkdir(parents=True, exist_ok=True)  # the default, in FILON_HOME, made on first use
        try:
            engine = create_engine(url, pool_pre_ping=True)
            if engine.dialect.name == "sqlite":
                _sqlite_pragmas(engine)
            migrate(engine)
        except Exception as exc:  # driver, URL or permission: one clear line for the user
            raise StoreError(said("err.store.cannot_open", url=repr(shown(url)), why=str(exc))) from exc
        for tell in store_opened:
            tell(url, new)
        return cls(engine)

    @property
    def name(self) -> str:
        """Which store this is, for messages ("no conversation X in the store …")."""
        return where(self.engine.url.render_as_string(hide_password=False))

    @contextmanager
    def session(self) -> Iterator[Session]:
        with Session(self.engine, expire_on_commit=False) as session:
            yield session

    def close(self) -> None:
        self.engine.dispose()

    # --- eval runs -------------------------------------------------------------------------------------

    def record_eval(self, run: EvalRun, attempts: list[EvalAttemptRow]) -> str:
        """Store one `filon eval` run and every attempt of it, as the store's own rows (in English: the
        report, French, is the gate's, and `goldens.verdict.record` says one in the other's words);
        returns the run id."""
        with self.session() as s:
            s.add(run)
            s.flush()
            s.add_all(attempts)
            s.commit()
        return run.id

    def record_comparison(self, a_run_id: str, b_run_id: str, verdict: str, exit_code: int,
                          delta: float | None, p_value: float | None) -> None:  # fmt: skip
        with self.session() as s:
            s.add(EvalComparison(created_at=datetime.now(UTC), a_run_id=a_run_id, b_run_id=b_run_id,
                                 verdict=verdict, exit_code=exit_code,
                                 delta=delta, p_value=p_value))  # fmt: skip
            s.commit()

    def eval_categories(self, run_ids: list[str]) -> dict[str, dict[str, tuple[int, int]]]:
        """Each run's (passed, valid) attempts by category: what a shared report draws over the runs.
        Errors and attempts the target could not run are not valid: they say nothing of the agent."""
        out: dict[str, dict[str, tuple[int, int]]] = {run_id: {} for run_id in run_ids}
        if not run_ids:
            return out
        with self.session() as s:
            query = select(EvalAttemptRow).where(col(EvalAttemptRow.run_id).in_(run_ids))
            for a in s.exec(query):
                if a.status not in ("passed", "failed"):
                    continue
                passed, valid = out[a.run_id].get(a.category, (0, 0))
                out[a.run_id][a.category] = (passed + (a.status == "passed"), valid + 1)
        return out

    def eval_history(self, case_id: str | None = None, limit: int = 20) -> list[HistoryRow]:
        """The newest runs first; with a case id, only runs that replayed it, with its k/N there."""
        with self.session() as s:
            runs = list(s.exec(select(EvalRun).order_by(col(EvalRun.started_at).desc())))
            # every comparison of a run, oldest first: a later one never hides an earlier verdict
            said: dict[str, dict[str, None]] = {}
            for c in s.exec(select(EvalComparison).order_by(col(EvalComparison.created_at))):
                said.setdefault(c.b_run_id, {})[f"vs {c.a_run_id}: {c.verdict}"] = None
            compared = {run_id: "; ".join(verdicts) for run_id, verdicts in said.items()}
            by_run: dict[str, list[EvalAttemptRow]] = {}
            if case_id is not None:
                for result in s.exec(select(EvalAttemptRow).where(EvalAttemptRow.case_id == case_id)):
                    by_run.setdefault(result.run_id, []).append(result)
            out = []
            for run in runs:
                status = None
                if case_id is not None:
                    if run.id not in by_run:
                        continue
                    valid = [a for a in by_run[run.id] if a.status != "error"]
                    status = f"{sum(a.status == 'passed' for a in valid)}/{len(valid)}"
                out.append(
                    HistoryRow(
                        run.id,
                        run.started_at,
                        run.model,
                        run.backend,
                        run.prompt_sha256,
                        run.score,
                        run.decision,
                        run.passed,
                        run.valid,
                        run.errors,
                        status,
                        compared.get(run.id),
                        run.prompt_path,
                    )
                )
                if len(out) >= limit:
                    break
            return out
