"""`codesift serve`: an HTTP JSON API over one Workspace (the tools, and a one-line command
language for agents in any language) and a single static page for people.

Modules: `commands` (the command language), `security` (Host/Origin checks, the write
token, size caps), `preview` (an edit's diff without writing it), `app` (the Starlette
routes), `server` (binding and running with uvicorn); `static/` holds the page.
"""

from .app import Service, create_app
from .commands import ToolCall, plan
from .server import DEFAULT_HOST, DEFAULT_PORT, Server, serve

__all__ = [
    "DEFAULT_HOST",
    "DEFAULT_PORT",
    "Server",
    "Service",
    "ToolCall",
    "create_app",
    "plan",
    "serve",
]
