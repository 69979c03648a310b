"""The web layer: FastAPI routes, the WebSocket endpoint and the wire models."""
