"""Interfaces: the command line; MCP server and client; REST server and OpenAPI importer; the credential gateway."""
