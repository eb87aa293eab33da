"""Migration 8: eval runs and results in English."""

from __future__ import annotations

from filon.miner.store.migrations._ddl import statements

NAME = "eval runs and results in English"

ENGLISH_STORE = (
    # the store speaks English (docs/architecture.md, "the language rule"); the report stays French
    "ALTER TABLE eval_runs RENAME COLUMN seuil TO threshold",
    "ALTER TABLE eval_results RENAME COLUMN categorie TO category",
    "ALTER TABLE eval_results RENAME COLUMN statut TO status",
    "ALTER TABLE eval_results RENAME COLUMN outils TO tools",
    "ALTER TABLE eval_results RENAME COLUMN ecarts TO gaps",
    "ALTER TABLE eval_results RENAME COLUMN erreur TO error",
    "UPDATE eval_results SET status = CASE status WHEN 'ok' THEN 'passed' WHEN 'echec' THEN 'failed' "
    "WHEN 'erreur' THEN 'error' ELSE status END",
    "UPDATE eval_comparisons SET verdict = CASE verdict WHEN 'pas pire' THEN 'not worse' "
    "WHEN 'pire' THEN 'worse' WHEN 'non concluant' THEN 'inconclusive' "
    "WHEN 'ne s''apparient pas' THEN 'unpaired' ELSE verdict END",
)

apply = statements(*ENGLISH_STORE)
