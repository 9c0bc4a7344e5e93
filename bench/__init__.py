"""Benchmarks: `make bench` (or `python -m bench [overview|monitor|latency]`). Figures are printed, never asserted."""
