"""REST: serve tools as a FastAPI app with an OpenAPI document, and import an OpenAPI service as tools."""

from toollab.interfaces.rest.openapi import OpenAPIService, load_spec, openapi_tools

__all__ = ["OpenAPIService", "load_spec", "openapi_tools"]
