"""SQLModel tables of filon's store. Created only by migrations (`miner/migrations.py`), never ad hoc."""

from __future__ import annotations

from datetime import datetime

from sqlmodel import Field, SQLModel


class Migration(SQLModel, table=True):
    __tablename__ = "filon_migrations"
    version: int = Field(primary_key=True)
    name: str
    applied_at: datetime


class EvalRun(SQLModel, table=True):
    __tablename__ = "eval_runs"
    id: str = Field(primary_key=True)
    started_at: datetime = Field(index=True)
    duration_s: float
    backend: str
    model: str
    prompt_path: str
    prompt_sha256: str
    goldens: str
    seuil: float
    score: float | None
    decision: str
    rule: str
    passed: int
    valid: int
    errors: int
    report_path: str = ""


class EvalResult(SQLModel, table=True):
    __tablename__ = "eval_results"
    id: int | None = Field(default=None, primary_key=True)
    run_id: str = Field(foreign_key="eval_runs.id", index=True)
    case_id: str = Field(index=True)
    categorie: str
    attempt: int
    statut: str  # ok, echec, erreur
    outils: str  # JSON list, in call order
    ecarts: str  # JSON list
    erreur: str | None = None
    latency_ms: float = 0.0
    input_tokens: int = 0
    output_tokens: int = 0
