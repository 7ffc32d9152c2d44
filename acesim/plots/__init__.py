"""Charts: they take the tables of ``acesim.analysis`` and return matplotlib figures (docs/architecture.md)."""
