"""Signals and inferences in the TUI: triage of what memtui noticed, and the person's
conclusions with their provenance."""
