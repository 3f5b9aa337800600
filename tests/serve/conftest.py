"""Tests of `codesift serve`: a live HTTP server, its command language, concurrency bounds and
the page in headless Chromium."""
