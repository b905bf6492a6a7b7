"""Agent integrations: tool definitions, tool factories, formatting, MCP server, LangChain."""
