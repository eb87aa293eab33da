"""Every setting of filon's rooms in one place: the `FILON_*` environment variables, `EVAL_SEUIL`, and the
flag rules' `[tool.filon]` (pyproject.toml) or `filon.toml`. Each has a description, and docs/settings.md's
table of variables is checked against these fields by the tests.

Read when asked (`Settings()` reads the environment at that moment), so a test's monkeypatched variable,
or a CLI option exported before a command runs, is what the code sees. A value that does not parse is a
one-line error naming the variable. The reference agent keeps its own settings (`agent/`: `FILON_MODEL`),
as a user's agent would; so does the scripted stand-in (`FILON_SCRIPTED_*`, `agent/scripted/server.py`).
"""

from __future__ import annotations

from pathlib import Path
from typing import Literal

from pydantic import AliasChoices, Field, ValidationError
from pydantic_settings import BaseSettings, SettingsConfigDict

from filon.miner.core.messages import Refusal, said
from filon.miner.places import default_home


class SettingsError(Refusal):
    """A setting that does not parse: the message names it."""


class Settings(BaseSettings):
    model_config = SettingsConfigDict(env_prefix="FILON_", extra="ignore", populate_by_name=True)

    db: str | None = Field(
        None,
        description="The store: a SQLite file path, postgres://…, or an SQLAlchemy URL (default "
        "FILON_HOME/filon.db).",
    )
    goldens: Path | None = Field(
        None, description="The folder of the golden cases (default the project's goldens/cases)."
    )
    home: Path | None = Field(
        None,
        description="Where filon keeps its own files, the store and the redaction key (default the project's "
        "var/, found as filon.toml is; outside any project, the per-user data folder).",
    )
    secret: str | None = Field(
        None, description="The redaction key (default: a random key kept in FILON_HOME/secret.key)."
    )
    redact: bool = Field(True, description="Redact emails, phones, cards, IBANs and NIRs before storage.")
    capture_content: bool = Field(
        True, description="Ask the official google-genai instrumentation to record messages on spans."
    )
    offload: bool = Field(True, description="Decide and store spans in filon's helper process.")
    sample_rate: float | None = Field(
        None, ge=0, le=1, description="Share of unflagged conversations kept (default 0.1)."
    )
    token: str | None = Field(None, description="The bearer token `filon serve` requires.")
    lang: Literal["fr", "en"] = Field(
        "fr",
        description=(
            "The gate's console and JUnit language: fr or en (`filon eval --lang`); the judge's calibration "
            "figures and the gate's sentences lint quotes follow it. The other commands speak English."
        ),
    )
    eval_threshold: float = Field(
        0.9,
        ge=0,
        le=1,
        validation_alias=AliasChoices("EVAL_SEUIL", "eval_seuil", "eval_threshold"),
        description="The gate's threshold (EVAL_SEUIL, as the seeds name it).",
    )

    def home_folder(self) -> Path:
        """FILON_HOME, else the project's `var/`, else the per-user data folder: absolute."""
        return (self.home or default_home()).absolute()

    def report_path(self) -> Path:
        """Where `filon eval` writes its report and the TUI's failures screen reads it by default."""
        return self.home_folder() / "eval-rapport.json"


def settings() -> Settings:
    """The settings now, or `SettingsError` naming the variable that does not parse."""
    try:
        return Settings()
    except ValidationError as exc:
        first = exc.errors()[0]
        name = str(first["loc"][0]) if first["loc"] else "?"
        variable = (
            "EVAL_SEUIL"
            if name in ("eval_threshold", "eval_seuil", "EVAL_SEUIL")
            else f"FILON_{name.upper()}"
        )
        raise SettingsError(
            said("err.settings.value", variable=variable, why=first["msg"], got=repr(first.get("input")))
        ) from exc


def described() -> list[tuple[str, str]]:
    """(variable, description) for every setting, as docs/settings.md's table lists them."""
    out = []
    for name, info in Settings.model_fields.items():
        variable = "EVAL_SEUIL" if name == "eval_threshold" else f"FILON_{name.upper()}"
        out.append((variable, info.description or ""))
    return out
