"""Tests of the persistent index: equality with a scan (including the differential run), the
watch, the cache as hostile input, background generations and the servers that use it."""
