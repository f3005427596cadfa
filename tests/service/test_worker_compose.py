"""docker-compose.yml and the Dockerfile: they parse, and their commands match the CLI.

No Docker engine runs here, so this is what can be checked without one: the YAML's shape,
the health checks and dependencies, the Dockerfile targets and copied paths, and that every
`autotune ...` command in either file is accepted by `autotune`'s own argument parser.
"""

from __future__ import annotations

import re
import shlex
from pathlib import Path
from typing import Any

import pytest
import yaml

from service.cli import build_parser

ROOT = Path(__file__).resolve().parents[2]


def _compose() -> dict[str, Any]:
    data = yaml.safe_load((ROOT / "docker-compose.yml").read_text())
    assert isinstance(data, dict)
    return data


def _dockerfile() -> str:
    return (ROOT / "Dockerfile").read_text()


def _parses(command: list[str]) -> None:
    assert command[0] == "autotune", command
    try:
        args = build_parser().parse_args(command[1:])
    except SystemExit as err:  # argparse reports an unknown option or command this way
        raise AssertionError(f"`{shlex.join(command)}` is not a valid autotune command") from err
    assert callable(args.handler)


def test_compose_has_the_database_two_replicas_a_proxy_and_the_workers() -> None:
    services = _compose()["services"]
    assert set(services) == {
        "postgres", "service-a", "service-b", "proxy", "cpu-worker", "gpu-worker"
    }  # fmt: skip
    assert services["postgres"]["healthcheck"]["test"]
    assert "profiles" not in services["cpu-worker"]
    assert services["gpu-worker"]["profiles"] == ["gpu"]
    replicas = [services["service-a"], services["service-b"]]
    for replica in replicas:
        database_url = replica["environment"]["AUTOTUNE_DATABASE_URL"]
        assert (
            database_url.startswith("postgresql+psycopg://") and "@postgres:5432/" in database_url
        )
        assert replica["depends_on"]["postgres"]["condition"] == "service_healthy"
        assert "/healthz" in " ".join(replica["healthcheck"]["test"])
    # The replicas share only the database: each its own data volume.
    assert replicas[0]["volumes"] != replicas[1]["volumes"]
    assert replicas[0]["command"] == replicas[1]["command"]
    proxy = services["proxy"]
    assert proxy["ports"] == ["127.0.0.1:8000:8000"]
    config = _compose()["configs"]["proxy-config"]["content"]
    assert "server service-a:8000" in config and "server service-b:8000" in config
    assert "proxy_buffering off" in config  # the job event stream
    for worker in ("cpu-worker", "gpu-worker"):
        assert services[worker]["depends_on"]["service-a"]["condition"] == "service_healthy"
        environment = services[worker]["environment"]
        assert environment["AUTOTUNE_SERVER"] == "http://service-a:8000,http://service-b:8000"
        assert "AUTOTUNE_REGISTRATION_SECRET" in environment
        assert services[worker]["stop_signal"] == "SIGTERM"


@pytest.mark.parametrize("name", ["service-a", "service-b", "cpu-worker", "gpu-worker"])
def test_compose_commands_are_valid_autotune_commands(name: str) -> None:
    _parses(_compose()["services"][name]["command"])


def test_dockerfile_targets_commands_and_copied_paths_exist() -> None:
    text = _dockerfile()
    targets = set(re.findall(r"^FROM \S+ AS (\S+)$", text, re.MULTILINE))
    for service in _compose()["services"].values():
        if "build" in service:
            assert service["build"]["target"] in targets
    for source in re.findall(r"^COPY (\S+) \S+$", text, re.MULTILINE):
        assert (ROOT / source).exists(), f"the Dockerfile copies {source}, which is missing"
    commands = re.findall(r"^CMD (\[.*\])$", text, re.MULTILINE)
    assert len(commands) == 2
    for command in commands:
        _parses(yaml.safe_load(command))  # a JSON array is YAML too


def test_dockerignore_keeps_the_sources_the_image_copies() -> None:
    ignored = {line.strip() for line in (ROOT / ".dockerignore").read_text().splitlines()}
    for source in re.findall(r"^COPY (\S+) \S+$", _dockerfile(), re.MULTILINE):
        assert source not in ignored


def test_each_image_compiles_its_own_native_modules() -> None:
    ignored = {line.strip() for line in (ROOT / ".dockerignore").read_text().splitlines()}
    assert "**/*.so" in ignored  # (extensions built on the host fit the host's Python)
    assert _dockerfile().count("python -m ir.native") == 2
