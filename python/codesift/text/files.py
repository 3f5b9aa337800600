"""Text files for editing: a file's bytes decoded so that they can be changed and written
back byte-exact. (Opening, locking and replacing files is the engine's: `_core.Engine.lock`
and `_core.Engine.write` work beneath the root handle.)"""

from __future__ import annotations

from ..errors import BinaryFileError, InvalidArgumentError

BINARY_SNIFF = 8192


class TextFile:
    """A file's bytes decoded for editing, and the way back to exactly the same bytes.

    UTF-8 is decoded with `surrogateescape`, so bytes that are not UTF-8 (a latin-1 file, a
    stray byte) survive untouched; a UTF-8 BOM is kept; UTF-16 with a BOM is decoded and
    re-encoded in the same byte order. Search hits address "view bytes": the file's bytes
    for UTF-8 files, the UTF-8 transcoding for UTF-16 ones.
    """

    def __init__(self, data: bytes, shown: str) -> None:
        self.data = data
        if data.startswith((b"\xff\xfe", b"\xfe\xff")):
            self.codec = "utf-16-le" if data[0] == 0xFF else "utf-16-be"
            self.bom = data[:2]
            try:
                self.text = data[2:].decode(self.codec)
            except UnicodeDecodeError:
                raise BinaryFileError(
                    f"{shown} is not valid UTF-16; it cannot be edited as text"
                ) from None
            self.view_prefix = b""
        else:
            if b"\x00" in data[:BINARY_SNIFF] or (len(data) > BINARY_SNIFF and b"\x00" in data):
                raise BinaryFileError(
                    f"{shown} is a binary file (it contains NUL bytes); it cannot be read or "
                    "edited as text"
                )
            self.codec = "utf-8"
            self.bom = b"\xef\xbb\xbf" if data.startswith(b"\xef\xbb\xbf") else b""
            self.text = data[len(self.bom) :].decode("utf-8", "surrogateescape")
            self.view_prefix = self.bom

    def encode(self, text: str) -> bytes:
        try:
            if self.codec == "utf-8":
                return self.bom + text.encode("utf-8", "surrogateescape")
            return self.bom + text.encode(self.codec, "surrogatepass")
        except UnicodeEncodeError:
            raise InvalidArgumentError(
                "the new text holds characters that cannot be written (a lone surrogate); send "
                "valid text"
            ) from None

    def view(self, text: str | None = None) -> bytes:
        """The bytes search offsets refer to, for `text` (default: the file's text)."""
        body = self.text if text is None else text
        return self.view_prefix + body.encode("utf-8", "surrogateescape")

    def index_of_view_offset(self, offset: int) -> int:
        """The text index of view byte `offset`."""
        view = self.view()
        return len(view[len(self.view_prefix) : offset].decode("utf-8", "surrogateescape"))

    def view_offset_of_index(self, index: int, text: str | None = None) -> int:
        body = self.text if text is None else text
        return len(self.view_prefix) + len(body[:index].encode("utf-8", "surrogateescape"))


def binary_error(shown: str) -> BinaryFileError:
    """What reading a file with a NUL byte in its first `BINARY_SNIFF` bytes raises."""
    return BinaryFileError(
        f"{shown} is a binary file (it contains NUL bytes); it cannot be read as text"
    )


def text_as_read(data: bytes, shown: str) -> str:
    """The text of a file that holds `data`, decoded as `Workspace.read` and
    `Workspace.lines` decode it: UTF-16 with a BOM decoded, a UTF-8 BOM left out, other bytes
    that are not UTF-8 kept (`surrogateescape`); a NUL byte in the first `BINARY_SNIFF` bytes
    is a `BinaryFileError`."""
    if data.startswith((b"\xff\xfe", b"\xfe\xff")):
        return TextFile(data, shown).text
    if b"\x00" in data[:BINARY_SNIFF]:
        raise binary_error(shown)
    return data.removeprefix(b"\xef\xbb\xbf").decode("utf-8", "surrogateescape")
