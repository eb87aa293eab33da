"""goldens room."""
