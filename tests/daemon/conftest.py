"""Tests of the per-user index daemon run as its own process: lifecycle, security,
freshness and its clients."""
