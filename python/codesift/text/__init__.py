"""Text as codesift reads, shows and compares it:

- `files`: a file's bytes decoded for editing, and the way back to exactly the same bytes;
- `line_reader`: a text file's lines for `Workspace.read` and `Workspace.lines`;
- `linediff`: line diffs whose cost stays bounded on any input (for the diffs of edits);
- `escapes`: text with lone surrogates (names that are not UTF-8) shown losslessly and read
  back.
"""
