"""What every layer above uses and that knows nothing of the game: the one error type, bounds,
reading and writing files, intervals, text tables and the task runner (docs/architecture.md)."""
