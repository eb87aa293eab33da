"""A problem lint found in a case: the file, the field, what is wrong, and whether it blocks."""

from __future__ import annotations

from dataclasses import dataclass
from typing import Literal

from filon.miner.core.messages import Said

Level = Literal["error", "warning"]


@dataclass(frozen=True)
class Problem:
    file: str
    field: str
    message: str
    level: Level
    refused_by_ci: bool = False  # a warning that `lint --strict` (as CI runs it) makes an error
    said: Said | None = None  # the message as a sentence of the catalogue, where it quotes the gate's

    def line(self, lang: str = "fr") -> str:
        where = f"{self.file}: {self.field}" if self.field else self.file
        message = self.said.render(lang) if self.said is not None else self.message
        return f"{self.level}: {where}: {message}"
