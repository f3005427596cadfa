"""The service: FastAPI app, database models, job orchestration, worker leases, artifacts, CLI."""
