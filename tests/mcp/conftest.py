"""Tests of the MCP server, driven by the official SDK's client."""
