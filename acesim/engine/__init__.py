"""The game from Python: rules, positions, legal plays, strategies and models, random streams,
and every entry point that plays games on the kernels (docs/architecture.md)."""
