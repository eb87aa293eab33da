"""System prompts as files: `system.md` (default, with the identity rule) and `court.md` (the incident's)."""

from __future__ import annotations

import hashlib
from dataclasses import dataclass
from importlib import resources
from pathlib import Path

from filon.miner.core.messages import Refusal, said

DEFAULT = "system.md"


@dataclass(frozen=True)
class Prompt:
    path: str
    text: str

    @property
    def sha256(self) -> str:
        return hashlib.sha256(self.text.encode("utf-8")).hexdigest()


class PromptMissing(Refusal, FileNotFoundError):
    """No prompt at the path given, nor a packaged one of that name."""


def load_prompt(path: str | Path | None = None) -> Prompt:
    """The prompt at `path`, or the packaged default; a bare name (`court.md`) means a packaged one."""
    if path is None:
        path = DEFAULT
    candidate = Path(path)
    if candidate.is_file():
        return Prompt(str(candidate), candidate.read_text(encoding="utf-8"))
    packaged = resources.files("filon.agent.prompts").joinpath(candidate.name)
    if candidate.parent in (Path("."), Path("agent/prompts")) and packaged.is_file():
        return Prompt(f"agent/prompts/{candidate.name}", packaged.read_text(encoding="utf-8"))
    raise PromptMissing(said("err.prompt.missing", path=str(path)))
