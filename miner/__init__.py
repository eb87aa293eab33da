"""The store (the only code that reads or writes it), its tables and migrations; flags and the review queue."""
