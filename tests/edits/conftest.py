"""Tests of the edits wing: the edit strategies, linked edits, the patch formats (with peers'
own cases and a `git apply` replay), undo, dry runs and cancellation."""
