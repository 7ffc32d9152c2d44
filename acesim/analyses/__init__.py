"""The figures of the analyses: records into DataFrames and intervals, and the analyses that play
games through the engine to get them (equity models, luck, a position's hint and rollout)
(docs/architecture.md)."""
