"""Whether a tool's result says the call failed. Stacks report a failure three ways: the tool span ends in
error, the tool answers an error message the model reads (tau-bench's tools return « Error: reservation
not found »; others `{"error": …}`), or it answers a refusal (the reference shop's `demander_retour` out of
its window: `{"accepte": false, "raison": …}`; `{"success": false, "message": …}` elsewhere). Each means
the call changed nothing, which the flags, the grader's `si_reussi` and drafting all need to know."""

from __future__ import annotations

import re
from typing import Any

_ERROR_TEXT = re.compile(r"^\s*(?:error|erreur|exception|failed|failure)\b", re.IGNORECASE)
_ERROR_KEYS = ("error", "erreur", "errors", "exception")
_DONE_KEYS = ("accepte", "accepted", "success", "succeeded", "ok")  # false: the tool refused
_REASON_KEYS = ("raison", "reason", "message", "motif")


def failed_result(result: Any) -> str | None:
    """The error a result carries, or None: a string that starts as an error message, an object whose
    `error` / `erreur` is set (or a small one whose `errors` / `exception` is), or one that says it was
    not done (`accepte`, `success`, `ok`… exactly false: its reason, else that key)."""
    if type(result) is str:
        return result[:200] if _ERROR_TEXT.match(result) else None
    if type(result) is dict and result:
        for key in _ERROR_KEYS:
            if result.get(key) and (len(result) <= 2 or key in ("error", "erreur")):
                return str(result[key])[:200]
        for key in _DONE_KEYS:
            if result.get(key) is False:
                reason = next((result[k] for k in _REASON_KEYS if result.get(k)), f"{key}: false")
                return str(reason)[:200]
    return None
