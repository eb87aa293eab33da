"""The store: the only code that reads or writes filon's database, on SQLite or PostgreSQL.

`Store` (`api`) is the face every command and screen holds. It holds its repositories as attributes, each
its own job and none knowing the others (`store.traces`: conversations and their detail; `store.groups`:
the failure groups; `store.reviews`: claims, verdicts, group reviews; `store.incidents`), and does the
few whole-store operations itself (`trace_batch` for ingest, `stats`, `prune`, the eval runs). Behind
them, one module per job: the tables
(`tables`) and their migrations (`migrations`, one file each with the DDL it runs), the SQL shared by both
engines (`sql`, `pg_copy`), spans turned into rows and conversations (`rows`, `batch`, `traces`), the
review queue and its claims (`reviews`, `group_review`), failure groups (`groups`, `regroup`, `signature`),
incidents, retention and statistics. The store never imports the rules: what a flag is comes from the
core, which flags a conversation has comes from whoever calls `Store` (ingest runs the rules).
"""

from filon.miner.core.errors import StoreError
from filon.miner.store.api import HistoryRow, Store, db_url

__all__ = ["HistoryRow", "Store", "StoreError", "db_url"]
