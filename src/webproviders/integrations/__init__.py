"""Adapters for agent frameworks; each module imports its framework only when imported itself."""
