"""What a person reads: charts, findings sentences, the pages of the reports (docs/architecture.md)."""
