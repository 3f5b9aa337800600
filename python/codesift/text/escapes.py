"""Text with lone surrogates, shown losslessly and read back.

A file name that is not valid UTF-8 reaches Python as a `str` in `surrogateescape` form
(`os.fsdecode(b"t\\xff.txt") == "t\\udcff.txt"`). Such a string cannot be encoded as UTF-8,
so it must never reach a model, a terminal or a JSON encoder as it is:

- in text (tool output, MCP content, the CLI's JSON), each byte that is not UTF-8 is shown as
  `\\xNN` (`t\\xff.txt`), exactly what `os.fsencode(p).decode("utf-8", "backslashreplace")`
  gives; any other lone surrogate (which no file name has) as `\\udNNN`;
- a path argument that names no existing file has its `\\xNN` escapes (bytes 80-ff) turned
  back into those bytes (`unescape_path`), so a model can pass back the path it read.
"""

from __future__ import annotations

import codecs
import os
import re

TYPE_CHECKING = False
if TYPE_CHECKING:
    from typing import Any

# The patterns are compiled on first use (`re.compile`'s own cache): compiling them at import
# would be a start-up cost of every command.
_SURROGATE = "[\ud800-\udfff]"
_BYTE_ESCAPE = r"\\x([89a-fA-F][0-9a-fA-F])"
#: The error handler `install_stream_handler` registers for the CLI's output streams.
STREAM_ERRORS = "codesift-surrogates"


def _escape_one(found: re.Match[str]) -> str:
    code = ord(found[0])
    if 0xDC80 <= code <= 0xDCFF:  # a byte that was not UTF-8 (surrogateescape)
        return f"\\x{code - 0xDC00:02x}"
    return f"\\u{code:04x}"


def has_surrogates(text: str) -> bool:
    return not text.isascii() and re.search(_SURROGATE, text) is not None


def escape_surrogates(text: str) -> str:
    """`text` with every lone surrogate written as an escape (`\\xff`); always encodable."""
    return re.sub(_SURROGATE, _escape_one, text)


def json_safe(value: Any) -> Any:
    """A copy of JSON-ready `value` whose strings (keys too) have their lone surrogates
    escaped, for encoders that refuse them (pydantic's, UTF-8 streams). Values without any
    are returned as they are."""
    if isinstance(value, str):
        return escape_surrogates(value) if has_surrogates(value) else value
    if isinstance(value, dict):
        return {json_safe(k): json_safe(v) for k, v in value.items()}
    if isinstance(value, list | tuple):
        return [json_safe(v) for v in value]
    return value


def json_escape_surrogates(encoded: str) -> str:
    """JSON text (`json.dumps(..., ensure_ascii=False)`) with each lone surrogate written as
    a `\\udcff` escape, so the text encodes as UTF-8 and `json.loads` gives the exact string
    back. Lone surrogates can only occur inside JSON strings, where the escape is valid."""
    return re.sub(_SURROGATE, lambda m: f"\\u{ord(m[0]):04x}", encoded)


def unescape_path(text: str) -> str:
    """`text` with `\\xNN` escapes of bytes 80-ff decoded back to the file-name bytes (in
    `surrogateescape` form). Runs of escapes that spell valid UTF-8 become those characters
    (`\\xc3\\xa9` is `é`: the same bytes on disk). Text without escapes is returned as is."""
    if "\\x" not in text:
        return text
    raw = re.sub(_BYTE_ESCAPE, lambda m: chr(0xDC00 + int(m[1], 16)), text)
    try:
        return os.fsdecode(os.fsencode(raw))
    except UnicodeError:  # another lone surrogate: no file has this name either way
        return raw


def _stream_errors(exc: UnicodeError) -> tuple[str | bytes, int]:
    """Encoding error handler: surrogateescape's raw bytes for `\\udc80`-`\\udcff` (a file
    name prints as the bytes it has, as ls and ripgrep print it), a backslash escape for any
    other character the stream's encoding cannot hold."""
    if not isinstance(exc, UnicodeEncodeError):
        raise exc
    out = bytearray()
    for char in exc.object[exc.start : exc.end]:
        code = ord(char)
        if 0xDC80 <= code <= 0xDCFF:
            out.append(code - 0xDC00)
        elif code <= 0xFF:
            out += f"\\x{code:02x}".encode()
        elif code <= 0xFFFF:
            out += f"\\u{code:04x}".encode()
        else:
            out += f"\\U{code:08x}".encode()
    return bytes(out), exc.end


def install_stream_handler() -> str:
    """Registers the `STREAM_ERRORS` handler (once) and returns its name."""
    try:
        codecs.lookup_error(STREAM_ERRORS)
    except LookupError:
        codecs.register_error(STREAM_ERRORS, _stream_errors)
    return STREAM_ERRORS


__all__ = [
    "escape_surrogates",
    "has_surrogates",
    "install_stream_handler",
    "json_escape_surrogates",
    "json_safe",
    "unescape_path",
]
