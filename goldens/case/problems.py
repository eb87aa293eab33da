"""A problem lint found in a case: the file, the field, what is wrong, and whether it blocks."""

from __future__ import annotations

from dataclasses import dataclass
from typing import Literal

Level = Literal["error", "warning"]


@dataclass(frozen=True)
class Problem:
    file: str
    field: str
    message: str
    level: Level
    refused_by_ci: bool = False  # a warning that `lint --strict` (as CI runs it) makes an error

    def line(self) -> str:
        where = f"{self.file}: {self.field}" if self.field else self.file
        return f"{self.level}: {where}: {self.message}"
