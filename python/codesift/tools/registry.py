"""The profiles a `Toolbox` can expose, by name. Adding a profile is a data file and a module
under `profiles/` (the module defines `PROFILE` with `spec.declared_profile`), and one line
here."""

from __future__ import annotations

from .profiles import (
    ace,
    chaterm,
    claude_code,
    cline,
    codesift,
    codex,
    file_search,
    gemini_cli,
    mcp_filesystem,
    opencode,
    openlink,
    simple_coder,
    swe_agent,
)
from .spec import Profile

#: One line per profile.
_ALL = [
    codesift.PROFILE,
    claude_code.PROFILE,
    opencode.PROFILE,
    gemini_cli.PROFILE,
    cline.PROFILE,
    codex.PROFILE,
    swe_agent.PROFILE,
    mcp_filesystem.PROFILE,
]
#: The tool sets codesift was designed to back (DESIGN.md, "Tool sets codesift replaces").
_TOOL_SETS = [
    chaterm.PROFILE,
    simple_coder.PROFILE,
    file_search.PROFILE,
    openlink.PROFILE,
    ace.PROFILE,
]
PROFILES: dict[str, Profile] = {profile.name: profile for profile in _ALL + _TOOL_SETS}


def get_profile(name: str) -> Profile:
    """The profile called `name`; a `ValueError` naming the profiles when there is none."""
    found = PROFILES.get(name) if isinstance(name, str) else None
    if found is None:
        raise ValueError(f"unknown profile {name!r}; profiles: {', '.join(PROFILES)}")
    return found
