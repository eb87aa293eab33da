"""The rules: what can go wrong in a conversation, one function per detector, and the rulebook the gate
holds every answer to.

`flags.flag_conversation` runs every detector on a conversation at ingest; `flags.rule_flags` runs the
rulebook's on each attempt of the gate. What a cause is (its kind, severity, why, and the rulebook's
French name, label and blocking), is said once, in `registry`; the thresholds, tools and phrases of an
agent are its `filon.toml` (`config`). The rules read words through `miner.reading` and never touch the
store: ingest hands them a conversation and stores what they return.
"""
