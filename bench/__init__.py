"""Benchmarks that print figures: `python -m bench.<name>` (not pass/fail tests)."""
