"""The profiles a `Toolbox` can expose, by name. Adding a profile is one module under
`profiles/` that defines `PROFILE`, and one line here."""

from __future__ import annotations

from .profiles import ace, chaterm, codesift, file_search, openlink, simple_coder
from .spec import Profile

PROFILES: dict[str, Profile] = {profile.name: profile for profile in (codesift.PROFILE,)}
#: The tool sets codesift was designed to back (DESIGN.md, "Tool sets codesift replaces").
TOOL_SETS = (chaterm, simple_coder, file_search, openlink, ace)
PROFILES.update({module.PROFILE.name: module.PROFILE for module in TOOL_SETS})


def get_profile(name: str) -> Profile:
    """The profile called `name`; a `ValueError` naming the profiles when there is none."""
    found = PROFILES.get(name) if isinstance(name, str) else None
    if found is None:
        raise ValueError(f"unknown profile {name!r}; profiles: {', '.join(PROFILES)}")
    return found
