"""One check of a draft (its field, value, origin and why) and where checks come from: what the editor
shows line by line, in the origin's colour."""

from __future__ import annotations

import json
from dataclasses import dataclass
from enum import StrEnum
from typing import Any, Literal

from filon.goldens.case.tool_spec import ToolSpec


class Origin(StrEnum):
    """Where a check of a draft came from; the editor shows each in its own colour."""

    OBSERVED = "observed"  # what the agent did, kept as the expected behaviour
    CORRECTED = "corrected"  # the correct behaviour where the observed one was wrong (an incident)
    SUGGESTED = "suggested"  # a fact or guard the drafter proposes; the reviewer decides
    EXISTING = "existing"  # a check of a case already in the set, opened again
    EDITED = "edited"  # changed or added by the reviewer


CheckField = Literal[
    "outils", "outils_interdits", "escalade", "ordre", "par_tour", "contient", "ne_contient_pas", "simulation"
]
ADDABLE: tuple[CheckField, ...] = ("outils", "outils_interdits", "escalade", "contient", "ne_contient_pas")


@dataclass
class Check:
    """One check of the draft: which field, its value, where it came from, whether it is kept."""

    field: CheckField
    value: Any
    origin: Origin
    why: str = ""
    enabled: bool = True

    def label(self) -> str:
        """« outils_interdits: consulter_commande(numero=LL-10555) »: a tool with its arguments as the
        report names it, anything else as JSON."""
        if self.field in ("outils", "outils_interdits", "ordre"):
            shown = _tools_label(self.value, " → " if self.field == "ordre" else " ou ")
            if shown is not None:
                return f"{self.field}: {shown}"
        return f"{self.field}: {json.dumps(self.value, ensure_ascii=False)}"


def _tools_label(value: Any, joined: str) -> str | None:
    """A tool, a group of tools (« a ou b ») or an order (« a → b »), or None if it is not one."""
    items = value if isinstance(value, list) else [value]
    if not items or not all(isinstance(t, str | dict) for t in items):
        return None
    try:
        labels = [t if isinstance(t, str) else ToolSpec.model_validate(t).label() for t in items]
    except ValueError:
        return None
    return joined.join(labels) if isinstance(value, list) else labels[0]
