"""The service's settings: one validated object, read from `AUTOTUNE_*` environment variables.

`Settings.from_env()` reads `AUTOTUNE_<FIELD>` for every field (e.g. `AUTOTUNE_DATABASE_URL`,
`AUTOTUNE_DATA_DIR`, `AUTOTUNE_MAX_UPLOAD_BYTES`); a test builds a `Settings` directly.
The object is passed in (`create_app(settings)`), never read from a module global.
"""

from __future__ import annotations

import os
from collections.abc import Mapping
from pathlib import Path
from typing import Any

from pydantic import BaseModel, ConfigDict, Field, ValidationError, field_validator

from ir.errors import AutotuneError

ENV_PREFIX = "AUTOTUNE_"


class SettingsError(AutotuneError):
    """An `AUTOTUNE_*` setting has a value the service cannot use."""


class Settings(BaseModel):
    """Everything the service is configured with."""

    model_config = ConfigDict(frozen=True, extra="forbid")

    data_dir: Path = Field(default=Path("autotune-data"), description="models, tokens, SQLite")
    database_url: str = Field(
        default="", description="SQLAlchemy URL; empty means <data_dir>/autotune.db (SQLite)"
    )
    max_upload_bytes: int = Field(default=256 * 1024 * 1024, gt=0)
    registration_secret: str = Field(
        default="", description="worker registration secret; empty: <data_dir>/registration.token"
    )
    heartbeat_interval_s: float = Field(default=5.0, gt=0)
    lease_timeout_s: float = Field(default=60.0, gt=0, description="a batch lease without news")
    driver_lease_s: float = Field(default=15.0, gt=0, description="a job driver's lease")
    sweep_interval_s: float = Field(default=1.0, gt=0)
    max_attempts: int = Field(default=3, ge=1, description="leases per candidate before lost")
    max_wait_s: float = Field(default=60.0, gt=0, description="longest lease long poll")
    poll_interval_s: float = Field(default=0.2, gt=0, description="server-side poll step")
    max_drivers: int = Field(default=4, ge=0, description="job drivers per service process")
    driver_slice_s: float = Field(
        default=600.0,
        gt=0,
        description="a driver gives its slot to a waiting job after this long (and resumes later)",
    )
    run_drivers: bool = Field(default=True, description="start job drivers and the sweeper")

    @field_validator("database_url")
    @classmethod
    def _known_database(cls, value: str) -> str:
        if value and not value.startswith(("sqlite", "postgresql")):
            raise ValueError("database_url must be a sqlite:// or postgresql+psycopg:// URL")
        return value

    @property
    def resolved_database_url(self) -> str:
        """The database URL, defaulting to a SQLite file in the data directory."""
        return self.database_url or f"sqlite:///{self.data_dir.resolve() / 'autotune.db'}"

    @property
    def models_dir(self) -> Path:
        """Where uploaded models are stored, named by their sha256."""
        return self.data_dir / "models"

    @staticmethod
    def from_env(environ: Mapping[str, str] | None = None, **overrides: Any) -> Settings:
        """Settings from `AUTOTUNE_*` variables (of `environ`, default os.environ), with
        `overrides` (non-None values) taking precedence; raises SettingsError naming the
        bad variable."""
        environ = os.environ if environ is None else environ
        values: dict[str, Any] = {}
        for name in Settings.model_fields:
            key = ENV_PREFIX + name.upper()
            if key in environ:
                values[name] = environ[key]
        values.update({k: v for k, v in overrides.items() if v is not None})
        try:
            return Settings(**values)
        except ValidationError as err:
            problems = "; ".join(
                f"{ENV_PREFIX}{'.'.join(str(p) for p in e['loc']).upper()}: {e['msg']}"
                for e in err.errors()
            )
            raise SettingsError(f"bad settings: {problems}") from None
