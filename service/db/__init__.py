"""Storage: ORM rows, engine and session setup, migrations applied on start."""
