"""Load: the only code that writes the warehouse."""
