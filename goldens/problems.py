"""A problem lint found in a case: the file, the field, what is wrong, and whether it blocks."""

from __future__ import annotations

from dataclasses import dataclass


@dataclass(frozen=True)
class Problem:
    file: str
    field: str
    message: str
    level: str  # "error" or "warning"

    def line(self) -> str:
        where = f"{self.file}: {self.field}" if self.field else self.file
        return f"{self.level}: {where}: {self.message}"
