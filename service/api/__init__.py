"""The HTTP API under /v1: thin routes over the service layer."""
