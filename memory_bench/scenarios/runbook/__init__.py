"""Runbooks: a continual workload as a TOML file of steps (docs/runbooks.md)."""
