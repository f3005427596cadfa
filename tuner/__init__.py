"""Tuning: task extraction, search space, features, cost model, search, task scheduler, records."""
