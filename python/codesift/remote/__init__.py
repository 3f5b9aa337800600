"""Remote search: glob and grep on one or many hosts over SSH, with the result types of
`Workspace` and edits of remote hits by their `search_result_id`.

    from codesift.remote import RemoteWorkspace
    with RemoteWorkspace("web1,deploy@web2:2222", root="/srv/app") as rws:
        result = rws.grep(r"DEBUG\\s*=\\s*True", include="*.py")
        rws.edit_result(result.matches[0].id, "DEBUG = False")

How it works, module by module:

- `hosts`: the hosts string (`[user@]host[:port]`, `[ipv6]:port`, ssh-config aliases).
- `ssh`: the system `ssh` client runs every command (`ssh -F CONFIG` when `ssh_config` is
  given, else the user's `~/.ssh/config` applies as usual), with `BatchMode=yes`,
  `ConnectTimeout` and connection sharing (`ControlMaster=auto`, `ControlPersist`, a
  `ControlPath` in a private 0700 directory), so a second search on a host reuses the first
  one's connection. `close()` (or leaving the `with` block, or interpreter exit) stops the
  master connections with `ssh -O exit`.
- `scripts`: each command is a POSIX `sh` script fed to `exec sh -s` on stdin, so the
  user's login shell never parses a user string; every argument is `shlex.quote`d.
- `host`: the strategy per host (`strategy="auto"` probes once and remembers):
  `codesift_strategy` when `codesift` or `python3 -m codesift` runs there (the search runs
  on the host with `--json-full`: same semantics, ignore rules and speed as locally);
  otherwise `shell_strategy` (`find` + `grep -rnbHZ -E`, read by `shell_output`, the regex
  translated by `ere`, globs matched by codesift's own rules from `globs`). Strategy
  "shell" applies no ignore files, skips `.git`, does not follow symlinks, has ASCII-only
  case folding, cannot search across lines, and its hits cannot be edited by id.
- `fanout`: hosts are searched concurrently; a failed host is reported in
  `result.errors` while the others' results are kept; `max_total` is shared fairly.
- `hit_ids`: hits get ids from this workspace's own cache (`sr_` + a salt + a counter),
  remembered with their host, so `edit_result(id, new)` runs `codesift apply-hit` there.
- `workspace`: `RemoteWorkspace`, the facade; `settings`: `RemoteSettings` for the tool
  layer; `results`: the result types; `paths`: the root and search paths in it.
"""

from __future__ import annotations

from .ere import to_ere
from .errors import RemoteError
from .globs import PathPattern, expand_braces
from .host import STRATEGIES
from .host_specs import HostSpec, parse_hosts
from .results import RemoteEditResult, RemoteGlobResult, RemoteGrepResult
from .settings import RemoteSettings
from .ssh import CONTROL_PERSIST
from .workspace import RemoteWorkspace

__all__ = [
    "CONTROL_PERSIST",
    "STRATEGIES",
    "HostSpec",
    "PathPattern",
    "RemoteEditResult",
    "RemoteError",
    "RemoteGlobResult",
    "RemoteGrepResult",
    "RemoteSettings",
    "RemoteWorkspace",
    "expand_braces",
    "parse_hosts",
    "to_ere",
]
