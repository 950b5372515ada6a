"""The MCP front: the chat agent's tools and the vault's notes for MCP clients (stdio and streamable HTTP)."""
