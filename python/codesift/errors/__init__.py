"""codesift's exceptions. They are defined in the compiled core so that the engine and the
Python layer raise the very same classes; every one is a subclass of `CodesiftError`. The few
that only the Python layer raises subclass one of those.

An error says what went wrong and what to do next. Where what to do needs an option (a
literal search, replacing every occurrence, reading the region first...), the exception keeps
the two apart as data: `problem` (its text) and `hints` (`Hint`s whose options are named by
concept, `Concept`), so that each surface names the option in its own words
(`codesift.errors.hints`); `str(exc)` says it in the library's words."""

from __future__ import annotations

from .._core import (
    BinaryFileError,
    CancelledError,
    CodesiftError,
    ConflictError,
    InvalidArgumentError,
    MatchError,
    NotAFileError,
    NotFoundError,
    PatternError,
    SandboxError,
    StaleResultError,
)

# Neither `typing` nor `collections` is imported at run time: a piped grep starts without
# them (tests/cli/test_startup_imports.py), and this module is imported by all of codesift.
TYPE_CHECKING = False
if TYPE_CHECKING:
    from collections.abc import Callable, Sequence


def first_line(exc: BaseException, limit: int = 300) -> str:
    """The first line of `exc`'s message, cut to `limit` characters (`...` at the end): what
    a user is told of an unexpected error, never a traceback. "(no message)" when there is
    none or it cannot be turned into text."""
    try:
        text = str(exc).strip()
    except Exception:
        return "(no message)"
    line = text.split("\n", 1)[0] or "(no message)"
    return line if len(line) <= limit else line[: limit - 3] + "..."


class Concept:
    """The options a hint can name, by concept; each surface has its own name for each (a
    tool's parameter, another tool, a CLI flag or command, an HTTP field) or none."""

    LITERAL = "literal search"
    MULTILINE = "multiline search"
    FILE_GLOB = "narrow by file glob"
    LIST_DIR = "list a directory"
    FIND_FILES = "find files by name"
    READ = "read the region first"
    REPLACE_ALL = "replace all occurrences"
    HIT_ID = "a hit id"
    WRITE = "write a whole file"
    PATCH_FILE = "the file a patch edits"

    ALL = (
        LITERAL,
        MULTILINE,
        FILE_GLOB,
        LIST_DIR,
        FIND_FILES,
        READ,
        REPLACE_ALL,
        HIT_ID,
        WRITE,
        PATCH_FILE,
    )


class Hint:
    """What to do after an error. `text` has `{option}` where a surface's names for
    `concepts` go (joined with "or"); `fallback` is the advice where the surface has none of
    them ("": no advice); `separator` joins the advice to the problem ("\\n" after a
    multi-line problem, " " after a sentence, "; " after a clause). The engine's hints come
    as tuples of these four fields."""

    __slots__ = ("concepts", "fallback", "separator", "text")

    def __init__(
        self, text: str, concepts: Sequence[str], fallback: str = "", separator: str = "; "
    ) -> None:
        self.text = text
        self.concepts = tuple(concepts)
        self.fallback = fallback
        self.separator = separator

    def _fields(self) -> tuple[str, tuple[str, ...], str, str]:
        return (self.text, self.concepts, self.fallback, self.separator)

    def __eq__(self, other: object) -> bool:
        return isinstance(other, Hint) and self._fields() == other._fields()

    def __hash__(self) -> int:
        return hash(self._fields())

    def __repr__(self) -> str:
        return "Hint({!r}, {!r}, {!r}, {!r})".format(*self._fields())


#: The library's names for the concepts (the `codesift` tool profile's): what `str(exc)` says.
LIBRARY_OPTIONS = {
    Concept.LITERAL: "literal=true",
    Concept.MULTILINE: "multiline=true",
    Concept.FILE_GLOB: 'include="*.ext"',
    Concept.LIST_DIR: "list_dir",
    Concept.FIND_FILES: "glob",
    Concept.READ: "read_file",
    Concept.REPLACE_ALL: "replace_all=true",
    Concept.HIT_ID: "search_result_id",
    Concept.WRITE: "write_file",
    Concept.PATCH_FILE: "path=...",
}


def hinted(error_class: type[CodesiftError], problem: str, *hints: Hint) -> CodesiftError:
    """An exception of `error_class` that says `problem`, then `hints`: its text in the
    library's words, `problem` and `hints` kept as attributes for the surfaces to render."""
    error = error_class(render(problem, hints, LIBRARY_OPTIONS.get))
    error.problem = problem  # type: ignore[attr-defined]
    error.hints = hints  # type: ignore[attr-defined]
    return error


def reworded(error: BaseException, problem: str) -> BaseException:
    """An exception of `error`'s class that says `problem` (`error`'s own, reworded: with a
    prefix naming the edit, say) and keeps `error`'s hints."""
    hints = hints_of(error)
    if hints and isinstance(error, CodesiftError):
        return hinted(type(error), problem, *hints)
    return type(error)(problem)


def problem_of(error: BaseException) -> str:
    """What went wrong: the whole message of an error without hints."""
    problem = getattr(error, "problem", None)
    return problem if isinstance(problem, str) else str(error)


def hints_of(error: BaseException) -> tuple[Hint, ...]:
    """What to do next, as `Hint`s (none for an error that says it in its text)."""
    hints = getattr(error, "hints", None)
    if not isinstance(hints, tuple | list):
        return ()
    return tuple(h if isinstance(h, Hint) else Hint(*h) for h in hints)


def render_hint(hint: Hint, name_of: Callable[[str], str | None]) -> str:
    """`hint` with the names `name_of` gives its concepts (None: the surface has no such
    option); its fallback when there are none."""
    names: list[str] = []
    for concept in hint.concepts:
        name = name_of(concept)
        if name and name not in names:
            names.append(name)
    if not names:
        return hint.fallback
    return hint.text.replace("{option}", " or ".join(names))


def render(problem: str, hints: Sequence[Hint], name_of: Callable[[str], str | None]) -> str:
    """The problem, then each hint in the words `name_of` gives (see `render_hint`)."""
    text = problem
    for hint in hints:
        advice = render_hint(hint, name_of)
        if advice:
            text += hint.separator + advice
    return text


def message_in(error: BaseException, name_of: Callable[[str], str | None]) -> str:
    """An error's message with its options named by `name_of`: its own text when it has no
    hints."""
    hints = hints_of(error)
    if not hints:
        return str(error)
    return render(problem_of(error), hints, name_of)


class PatchFormatError(InvalidArgumentError):
    """A patch (apply_patch envelope, unified diff, SEARCH/REPLACE blocks) that cannot be
    parsed: the message names the line and what was expected there."""


__all__ = [
    "BinaryFileError",
    "CancelledError",
    "CodesiftError",
    "Concept",
    "ConflictError",
    "Hint",
    "InvalidArgumentError",
    "MatchError",
    "NotAFileError",
    "NotFoundError",
    "PatchFormatError",
    "PatternError",
    "SandboxError",
    "StaleResultError",
]
