"""A problem lint found in a case: the file, the field, what is wrong, and whether it blocks."""

from __future__ import annotations

from dataclasses import dataclass
from typing import Literal

from filon.miner.core.messages import Said, said

Level = Literal["error", "warning"]


@dataclass(frozen=True)
class Problem:
    file: str
    field: str
    message: str
    level: Level
    refused_by_ci: bool = False  # a warning that `lint --strict` (as CI runs it) makes an error
    said: Said | None = None  # the message as a sentence of the catalogue (None: a line from elsewhere)

    @classmethod
    def of(cls, file: str, field: str, said: Said, level: Level, refused_by_ci: bool = False) -> Problem:
        """A problem said by a code of the catalogue; its `message` is the English."""
        return cls(file, field, said.render("en"), level, refused_by_ci, said)

    def where(self) -> str:
        return f"{self.file}: {self.field}" if self.field else self.file

    def sentence(self) -> Said:
        """The problem without its level, as one sentence of the catalogue: where, then what."""
        return said("err.at", where=self.where(), why=self.said if self.said is not None else self.message)

    def line(self, lang: str = "fr") -> str:
        """The problem in English, the CLI's language, quoting the gate's sentences in `lang` (the gate's
        language: a « trop strict » says the gaps as `filon eval` says them)."""
        where = self.where()
        message = self.said.render("en", inner=lang) if self.said is not None else self.message
        return f"{self.level}: {where}: {message}"
