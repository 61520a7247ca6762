"""Scenarios: the script of steps, scenario files, the continual protocol and the
first-party generators."""
