"""Tests of the pure rules engine (craits.engine)."""
