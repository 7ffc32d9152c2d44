"""Analyses over game records: they take DataFrames and return DataFrames (docs/architecture.md)."""
