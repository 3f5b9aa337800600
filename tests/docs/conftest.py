"""Every code block of the README and docs/ run as a test."""
