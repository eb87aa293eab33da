"""miner room."""
