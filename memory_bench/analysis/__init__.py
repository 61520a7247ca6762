"""Statistics over seeds, paired verdicts between backends, and run-against-run comparison."""
