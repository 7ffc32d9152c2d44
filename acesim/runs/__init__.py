"""The jobs a command starts: simulate, report, ladder, explore, training, benchmarks and the
install's warm-up, each on the task runner (docs/architecture.md)."""
