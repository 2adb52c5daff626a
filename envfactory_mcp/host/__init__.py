"""Host: launch generated servers and talk to them over MCP."""
