"""The gate's own model calls: the judge, the embeddings of `proche_de`, the simulated customer, the
checks that use them (`ModelChecks`), one structured call and one mapping of failures to infrastructure
causes (`model_calls`), and the client's retries and breaker (`retry`). Above the deterministic checks,
which never call a model.
"""

from filon.goldens.models.model_calls import cause, structured_call
from filon.goldens.models.model_checks import ModelChecks, open_model_checks

__all__ = ["ModelChecks", "cause", "open_model_checks", "structured_call"]
