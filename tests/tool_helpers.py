"""What the tool tests of several areas (tools, mcp) expect alike."""

#: The codesift profile's tools, in the order it lists them.
CODESIFT_TOOLS = [
    "grep_search",
    "edit",
    "edit_many",
    "apply_patch",
    "glob_search",
    "read_file",
    "list_dir",
    "write_file",
    "search",
]


def edit_args(path: str, old: str, new: str) -> dict[str, str]:
    """The arguments of an edit by exact string (`path`, `old_string`, `new_string`)."""
    return {"path": path, "old_string": old, "new_string": new}
