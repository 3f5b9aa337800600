"""`Toolbox`: one profile's tools over one workspace, and the dispatcher that turns any call
into a `ToolResult` and never raises."""

from __future__ import annotations

from collections.abc import Mapping
from typing import Any

from ..arguments.sandbox import PathArg
from ..errors import CodesiftError, InvalidArgumentError, first_line
from ..errors.hints import render_for_tool
from ..workspace import Workspace
from .call_arguments import ArgumentReader, BadArguments
from .output import MAX_LINE_CHARS, MAX_OUTPUT_BYTES, MAX_OUTPUT_LINES, OutputCap
from .registry import get_profile
from .spec import Profile, Tool
from .tool_result import MAX_ECHO_CHARS, ToolResult, echo, error_result

LOCAL_HOSTS = frozenset({"", "local", "localhost", "127.0.0.1", "::1"})


class Toolbox:
    """One profile's tools over one workspace.

    Args:
        workspace: the `Workspace` every tool works in (and whose search cache edits use).
        profile: which agent's tool set to expose (`codesift` by default; see
            `codesift.tools.PROFILES`). An unknown name is a `ValueError` naming the profiles.
        remote: settings for `host` on glob/grep (a `codesift.remote.RemoteSettings`).
        spill_dir: where outputs over the size cap are saved (default: a new temp dir).
        max_output_lines / max_output_bytes: the cap on a result's text.
        max_line_chars: longer grep lines are shown as a window around the match.
    """

    def __init__(
        self,
        workspace: Workspace,
        profile: str = "codesift",
        *,
        remote: Any = None,
        spill_dir: PathArg | None = None,
        max_output_lines: int = MAX_OUTPUT_LINES,
        max_output_bytes: int = MAX_OUTPUT_BYTES,
        max_line_chars: int = MAX_LINE_CHARS,
    ) -> None:
        self.workspace = workspace
        self.profile: Profile = get_profile(profile)
        self.remote = remote
        self.output = OutputCap(
            spill_dir,
            max_output_lines=max_output_lines,
            max_output_bytes=max_output_bytes,
            max_line_chars=max_line_chars,
            read_hint=self.profile.spill_hint,
        )
        #: `text` and `data` as a tool's result, capped (see `OutputCap.finish`): what the
        #: profiles' handlers end with.
        self.finish = self.output.finish
        self._reader = ArgumentReader(self.profile, workspace.root)
        #: Per-toolbox state a profile's handlers keep between calls (e.g. files read).
        self.state: dict[str, Any] = {}

    @property
    def names(self) -> list[str]:
        return self.profile.names

    def tool(self, name: str) -> Tool:
        return self.profile.tool(name)

    def description(self, name: str) -> str:
        return self.profile.tool(name).description

    def input_schema(self, name: str) -> dict[str, Any]:
        return self.profile.tool(name).input_schema()

    def output_schema(self, name: str) -> dict[str, Any]:
        return self.profile.tool(name).output_schema()

    def schemas(self, format: str = "json") -> list[dict[str, Any]]:
        """The tools' JSON Schemas: `"json"` (name, description, parameters and output
        schema), `"openai"` (chat-completions `tools`) or `"anthropic"` (messages `tools`)."""
        if format not in ("json", "openai", "anthropic"):
            raise ValueError(f'format must be "json", "openai" or "anthropic", not {format!r}')
        out = []
        for tool in self.profile.tools:
            schema = tool.input_schema()
            if format == "openai":
                out.append(
                    {
                        "type": "function",
                        "function": {
                            "name": tool.name,
                            "description": tool.description,
                            "parameters": schema,
                        },
                    }
                )
            elif format == "anthropic":
                out.append(
                    {"name": tool.name, "description": tool.description, "input_schema": schema}
                )
            else:
                out.append(
                    {
                        "name": tool.name,
                        "description": tool.description,
                        "parameters": schema,
                        "output_schema": tool.output_schema(),
                    }
                )
        return out

    def resolve_name(self, name: object) -> str | None:
        return self.profile.resolve(name)

    def call(self, name: str, args: Mapping[str, Any] | str | None = None) -> ToolResult:
        """Runs a tool. Never raises: bad names, bad arguments (including JSON that cannot be
        parsed, or is nested absurdly deep) and every failure come back as a `ToolResult` with
        `is_error=True` and a message saying what to do. Only `KeyboardInterrupt` and
        `SystemExit` pass through."""
        resolved: str | None = None
        try:
            resolved = self.resolve_name(name)
            if resolved is None:
                refusal = self.profile.refusal(name)
                if refusal is not None:
                    return self.error(refusal, "AmbiguousTool")
                if self.profile.unknown_tool is not None:
                    fallback = self.profile.tool(self.profile.unknown_tool)
                    return fallback.handler(self, {"tool": name})
                return self.error(
                    f"Unknown tool {echo(name)}. Available tools: {', '.join(self.names)}.",
                    "UnknownTool",
                )
            tool = self.profile.tool(resolved)
            try:
                arguments = self._reader.read(tool, args)
            except BadArguments as exc:
                return self.error(f"{resolved}: {exc}", "InvalidArguments")
            return tool.handler(self, arguments)
        except CodesiftError as exc:
            return self.error(self.message(exc, resolved), type(exc).__name__)
        except (KeyboardInterrupt, SystemExit):
            raise
        except RecursionError:
            return self.error(
                f"{resolved or 'tool call'}: the arguments are nested too deeply to handle; "
                'pass a flat JSON object such as {"pattern": "TODO"}',
                "InvalidArguments",
            )
        except MemoryError:
            return self.error(
                f"{resolved or 'tool call'}: out of memory; narrow the request (a smaller "
                "path, or fewer results)",
                "InternalError",
            )
        # Anything else is a bug (or an engine panic, which is a BaseException): reported in
        # one line, never as a traceback.
        except BaseException as exc:
            return self.error(
                f"{resolved or 'tool call'} failed unexpectedly ({type(exc).__name__}: "
                f"{first_line(exc, MAX_ECHO_CHARS)}); try different arguments, and please "
                "report it",
                "InternalError",
            )

    def error(self, message: str, kind: str) -> ToolResult:
        return error_result(message, kind, template=self.profile.error_format)

    def message(self, error: BaseException, tool: str | None) -> str:
        """`error`'s message as this profile gives it when `tool` was called: what to do
        names only that tool's parameters and the profile's tools (or is left out)."""
        return render_for_tool(error, self.profile, tool)

    # -- helpers the profiles' handlers share --------------------------------------------

    def finish_read(self, result: Any, summary: str | None = None) -> ToolResult:
        """A `ReadResult` as a read_file result: its lines, then `summary` (its own by
        default) when the lines were cut or are none; never spilled (a read pages itself)."""
        said = result.summary if summary is None else summary
        if result.end_line < result.start_line:
            text = said
        elif result.truncated or result.long_lines:
            text = f"{result.content}\n\n{said}"
        else:
            text = result.content
        return self.finish("read_file", text, result.to_dict(), allow_spill=False)

    def search_target(self, args: dict[str, Any]) -> Any:
        """The workspace a search runs in: the local one, or the remote one for a `host`
        argument (popped from `args`)."""
        host = args.pop("host", None)
        if host is None or str(host).strip().lower() in LOCAL_HOSTS:
            return self.workspace
        if self.remote is None:
            raise CodesiftError(
                f"host {host!r} given but remote search is not configured for this toolbox; "
                "search the local workspace (leave host out)"
            )
        return self.remote.workspace(str(host))

    def edit_target(self, search_result_id: str) -> Any:
        """Where a search result lives: the local workspace, or the remote workspace (of the
        toolbox's remote settings) whose search returned it."""
        if self.remote is not None and self.workspace.cache.get(search_result_id) is None:
            owner = getattr(self.remote, "owner", None)
            found = owner(search_result_id) if owner is not None else None
            if found is not None:
                return found
        return self.workspace

    def unignored(self) -> Workspace:
        """A workspace on the same root that does not honour `.gitignore` (for agents' calls
        that ask to include ignored files); the access-ignore files still apply."""
        found = self.state.get("unignored")
        if found is None:
            found = self.state["unignored"] = Workspace(
                self.workspace.root, gitignore=False, ignore_files=self.workspace.ignore_files
            )
        return found  # type: ignore[no-any-return]

    def read_workspace(self, path: str) -> Workspace:
        """The workspace to read `path` in (a spill file is read in the spill directory)."""
        return self.output.workspace_for(path, self.workspace)


def argument_error(message: str) -> CodesiftError:
    return InvalidArgumentError(message)
