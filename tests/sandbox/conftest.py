"""Tests of the sandbox: every path resolved beneath the root handle, races with symlink swaps,
access-ignore files, reads, listings and writes."""
