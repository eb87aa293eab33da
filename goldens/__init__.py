"""The golden set: its cases (`goldens/cases/*.json`), schema and lint, the pure grader, and the gate."""
