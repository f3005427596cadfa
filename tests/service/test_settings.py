"""Settings from AUTOTUNE_* variables: validated, with errors naming the variable."""

from __future__ import annotations

from pathlib import Path

import pytest

from service.settings import Settings, SettingsError


def test_settings_from_the_environment(tmp_path: Path) -> None:
    settings = Settings.from_env(
        {"AUTOTUNE_MAX_ATTEMPTS": "5", "AUTOTUNE_LEASE_TIMEOUT_S": "2.5"}, data_dir=tmp_path
    )
    assert settings.max_attempts == 5 and settings.lease_timeout_s == 2.5
    assert settings.resolved_database_url == f"sqlite:///{tmp_path.resolve() / 'autotune.db'}"
    assert settings.models_dir == tmp_path / "models"


@pytest.mark.parametrize(
    ("variable", "value"),
    [
        ("AUTOTUNE_MAX_ATTEMPTS", "0"),
        ("AUTOTUNE_LEASE_TIMEOUT_S", "soon"),
        ("AUTOTUNE_DATABASE_URL", "mysql://x"),
        ("AUTOTUNE_MAX_UPLOAD_BYTES", "-1"),
    ],
)
def test_bad_settings_name_the_variable(variable: str, value: str) -> None:
    with pytest.raises(SettingsError, match=variable):
        Settings.from_env({variable: value})
