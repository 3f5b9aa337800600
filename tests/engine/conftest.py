"""Tests of the search engine through the library: grep, glob, ordering, limits, results and
their summaries, the search-result cache, streaming, memory bounds, and the binding itself."""
