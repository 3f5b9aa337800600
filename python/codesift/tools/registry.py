"""The profiles a `Toolbox` can expose, by name. Adding a profile is one module under
`profiles/` that defines `PROFILE`, and one line here."""

from __future__ import annotations

from .profiles import (
    claude_code,
    cline,
    codesift,
    codex,
    gemini_cli,
    mcp_filesystem,
    opencode,
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
PROFILES: dict[str, Profile] = {profile.name: profile for profile in _ALL}


def get_profile(name: str) -> Profile:
    """The profile called `name`; a `ValueError` naming the profiles when there is none."""
    found = PROFILES.get(name) if isinstance(name, str) else None
    if found is None:
        raise ValueError(f"unknown profile {name!r}; profiles: {', '.join(PROFILES)}")
    return found
