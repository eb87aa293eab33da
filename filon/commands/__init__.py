"""One module per command group. Each command parses options, calls one library function, maps to an exit code."""
