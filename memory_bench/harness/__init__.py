"""Running pairs: the script executor, pair specs, the runner, isolation, resume and
live-store checks."""
