"""Analyses over game records: they take DataFrames and return DataFrames (DESIGN.md)."""
