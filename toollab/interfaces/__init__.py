"""Interfaces: the command line (and, later, MCP, REST and the gateway)."""
