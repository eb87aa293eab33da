"""A case's checks, fingerprinted: what tells an example judged after the checks were last changed from
one the checks may have been written against.

An answer a reviewer judges on a case that already exists (the review TUI's `g` on a failure of the gate)
is kept with the fingerprint of the case's checks as they were then (`controles`). While the fingerprint
still matches, no check was changed after that verdict: the example is one the checks were not fitted
to, the honest figure `filon goldens trust` gives apart. Everything of a case but its id, its examples,
its notes and its provenance counts as its checks (the turns too: new turns make another case).
"""

from __future__ import annotations

import hashlib
from typing import Any

from filon.miner.core.jsontext import dumps_sorted

NOT_CHECKS = frozenset(("id", "exemples", "notes", "source"))


def checks_fingerprint(case: Any) -> str:
    """Twelve hex digits over a `Case`'s checks in a canonical JSON (defaults left out, keys sorted: the
    same checks written in another order or with a default spelt out give the same fingerprint)."""
    data = case.model_dump(mode="json", exclude_defaults=True)
    checks = {k: v for k, v in data.items() if k not in NOT_CHECKS}
    return hashlib.sha256(dumps_sorted(checks).encode()).hexdigest()[:12]
