"""The miner: what filon keeps of the agent's traces, and what it concludes from them.

Four rooms, each with its job and its face in its `__init__`:
- `core`: the domain types (a conversation, a flag and its severity, the transcript the gate grades);
- `store`: the database, its tables and migrations, the review queue (`Store` is the one API);
- `reading`: what an answer's words state, claim and promise, in French and in English;
- `rules`: the detectors that flag a conversation and the rulebook the gate holds answers to.
`settings` (environment and `.env`) and `places` (where files go) sit beside them, for every room. The
direction is written in `pyproject.toml`'s import-linter contracts: `core` imports no other room,
`reading` only `core`, and `store` and `rules` never import each other.
"""
