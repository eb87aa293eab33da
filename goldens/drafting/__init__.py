"""From a stored conversation to a case: the draft (checks with their origin, actions first, facts next,
words last), its fixtures and leaks, a simulation case, and the review's library calls the TUI and
`filon draft` share (`make_draft`, `lint_draft`, `save_case`, `try_case`).
"""

from filon.goldens.drafting.check import Check, Origin
from filon.goldens.drafting.draft import Draft, draft_case

__all__ = ["Check", "Draft", "Origin", "draft_case"]
