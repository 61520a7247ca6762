"""Results: per-step records, the typed result model, reading and writing files,
the manifest, and where a run writes."""
