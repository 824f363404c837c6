"""The MCP server: Claude Code's way into the archive (stdio), and the TUI's (loopback HTTP)."""
