"""Tests of the command line: `codesift` (ripgrep's habits, streaming, Ctrl-C, errors),
`codesift-rg` (against the real rg, through the index) and `codesift shim`."""
