"""Exit codes of every command: they follow grep's."""

#: 0 something found (or done), 1 nothing found, 2 error, 130 interrupted (Ctrl-C).
EXIT_FOUND, EXIT_NOTHING, EXIT_ERROR, EXIT_INTERRUPTED = 0, 1, 2, 130
