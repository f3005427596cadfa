"""Orchestration: job drivers in background processes, their leases, and the sweeper."""
