"""acesim: Monte Carlo statistics for Acey-Deucey and its house rules."""

__version__ = "0.1.0"
