"""Tempo's reference UCI engine."""
