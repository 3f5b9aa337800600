"""The LLM tool layer: profiles of tools (codesift's own, and other agents' exact tool sets),
their schemas in the formats model APIs want, and a dispatcher (`Toolbox.call`) that turns any
call into a `ToolResult` and never raises.

Layout: `result` (ToolResult, error results), `arguments` (parsing and validating what a
model sent), `output` (the output cap and spill files), `spec` (Tool, Profile), `toolbox`
(the dispatcher), `registry` (profiles by name), `profiles/` (one module and one JSON data
file per profile).
"""

from __future__ import annotations

from .call_arguments import MAX_ARGUMENT_DEPTH
from .output import MAX_LINE_CHARS, MAX_OUTPUT_BYTES, MAX_OUTPUT_LINES
from .profiles.codesift import PARAM_ALIASES, TOOL_ALIASES, TOOLS
from .registry import PROFILES, get_profile
from .spec import Profile, Tool
from .tool_result import ToolResult
from .toolbox import Toolbox

__all__ = [
    "MAX_ARGUMENT_DEPTH",
    "MAX_LINE_CHARS",
    "MAX_OUTPUT_BYTES",
    "MAX_OUTPUT_LINES",
    "PARAM_ALIASES",
    "PROFILES",
    "TOOLS",
    "TOOL_ALIASES",
    "Profile",
    "Tool",
    "ToolResult",
    "Toolbox",
    "get_profile",
]
