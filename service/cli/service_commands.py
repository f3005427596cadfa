"""`autotune serve`, `submit`, `status`, `logs`, `records export|import` and
`token create|revoke|list` (registered by service.cli.build_parser).

Client commands find the service with `--server URL` (or $AUTOTUNE_SERVER) and
authenticate with `--token` (or $AUTOTUNE_TOKEN, or the admin token that `serve` wrote
in its data directory).
"""

from __future__ import annotations

import argparse
import ctypes
import functools
import json
import signal
import subprocess
import sys
import threading
import time
from collections.abc import Callable
from pathlib import Path
from typing import Any

from service.cli.client import ClientError, ServiceClient, resolve_server, resolve_token
from service.cli.errors import CliError
from service.cli.progress import ProgressBar, format_job, format_records_table

FINAL_STATES = ("completed", "failed", "cancelled")
GRACEFUL_SHUTDOWN_S = 3
RECONNECT_S = 120.0  # how long `submit --wait` keeps trying to reach a restarting service
PR_SET_PDEATHSIG = 1


def register(commands: Any) -> None:
    """Add this module's subcommands to the `autotune` sub-parser collection."""
    serve = commands.add_parser(
        "serve",
        help="run the tuning service (API, jobs, web page)",
        description=(
            "Run the tuning service. Its database is $AUTOTUNE_DATABASE_URL when set (a "
            "postgresql:// URL: replicas share it), else a SQLite file in the data "
            "directory; the other settings are AUTOTUNE_* variables (docs/service.md)."
        ),
    )
    serve.add_argument("--host", default="127.0.0.1", help="address to listen on")
    serve.add_argument("--port", type=int, default=8000, help="port to listen on (default 8000)")
    serve.add_argument("--data-dir", help="models, tokens and the SQLite database")
    serve.add_argument(
        "--local-workers", type=int, default=0, metavar="N", help="start N local workers"
    )
    serve.set_defaults(handler=_cmd_serve)
    _register_job_commands(commands)
    _register_records_and_tokens(commands)


def _register_job_commands(commands: Any) -> None:
    submit = commands.add_parser("submit", help="upload a model and start a tuning job")
    _client_args(submit)
    submit.add_argument("model", help="path to an ONNX model")
    submit.add_argument(
        "--target",
        default="llvm",
        help="what to tune for: llvm (the service's host CPU) or an exact target string",
    )
    submit.add_argument(
        "--shape",
        action="append",
        default=[],
        metavar="NAME=DxDx...",
        help="bind a symbolic input shape, e.g. a dynamic batch (repeatable)",
    )
    submit.add_argument("--trials", type=int, required=True, help="total measurement budget")
    submit.add_argument("--time-limit", type=float, metavar="S", help="wall-clock limit")
    submit.add_argument("--batch-size", type=int, help="candidates per batch")
    submit.add_argument("--options", metavar="JSON", help="job options as a JSON object")
    submit.add_argument("--wait", action="store_true", help="show progress until the job ends")
    submit.add_argument("--json", action="store_true", help="print the job as JSON")
    submit.set_defaults(handler=_cmd_submit)

    status = commands.add_parser("status", help="a job's state and per-task progress")
    _client_args(status)
    status.add_argument("job", help="the job's id")
    status.add_argument("--json", action="store_true", help="print the job as JSON")
    status.set_defaults(handler=_cmd_status)

    logs = commands.add_parser("logs", help="a job's tuning records")
    _client_args(logs)
    logs.add_argument("job", help="the job's id")
    logs.add_argument("--best", action="store_true", help="only each task's best record")
    logs.add_argument(
        "--format", choices=("table", "jsonl"), default="table", help="a table or JSON lines"
    )
    logs.set_defaults(handler=_cmd_logs)


def _register_records_and_tokens(commands: Any) -> None:
    records = commands.add_parser("records", help="export or import tuning records")
    actions = records.add_subparsers(dest="action", required=True, metavar="ACTION")
    export = actions.add_parser("export", help="write records as JSON lines")
    _client_args(export)
    export.add_argument("--job", help="only this job's records")
    export.add_argument("--workload", help="workload key")
    export.add_argument("--target", help="only records of this exact target")
    export.add_argument("--best", action="store_true", help="only each workload's best")
    export.add_argument("-o", "--output", metavar="FILE.jsonl", help="default: stdout")
    export.set_defaults(handler=_cmd_records_export)
    importer = actions.add_parser("import", help="read records from JSON lines")
    _client_args(importer)
    importer.add_argument("file", metavar="FILE.jsonl", help="records as JSON lines")
    importer.set_defaults(handler=_cmd_records_import)

    token = commands.add_parser("token", help="create, list or revoke API tokens")
    token_actions = token.add_subparsers(dest="action", required=True, metavar="ACTION")
    create = token_actions.add_parser("create", help="create a token (printed once)")
    _client_args(create)
    create.add_argument("name", help="what the token is for (shown in the token list)")
    create.add_argument(
        "--kind", choices=("user", "admin"), default="user", help="admin may manage tokens"
    )
    create.set_defaults(handler=_cmd_token_create)
    revoke = token_actions.add_parser("revoke", help="revoke a token by id")
    _client_args(revoke)
    revoke.add_argument("token_id", help="the token's id (from `autotune token create`)")
    revoke.set_defaults(handler=_cmd_token_revoke)
    listing = token_actions.add_parser("list", help="list tokens")
    _client_args(listing)
    listing.set_defaults(handler=_cmd_token_list)


def _client_args(parser: argparse.ArgumentParser) -> None:
    parser.add_argument("--server", metavar="URL", help="service URL ($AUTOTUNE_SERVER)")
    parser.add_argument("--token", help="API token ($AUTOTUNE_TOKEN, or <data dir>/admin.token)")
    parser.add_argument("--data-dir", help="where to find admin.token ($AUTOTUNE_DATA_DIR)")


def _client(args: argparse.Namespace) -> ServiceClient:
    return ServiceClient(resolve_server(args.server), resolve_token(args.token, args.data_dir))


# -- serve -------------------------------------------------------------------------------------


def _cmd_serve(args: argparse.Namespace) -> int:
    import uvicorn

    from service.app import create_app
    from service.settings import Settings

    if args.local_workers < 0:
        raise CliError("--local-workers must not be negative")
    settings = Settings.from_env(data_dir=Path(args.data_dir) if args.data_dir else None)
    # Long polls in flight would hold a graceful shutdown for up to their wait_s.
    server: uvicorn.Server | None = None
    app = create_app(settings, shutting_down=lambda: server is not None and server.should_exit)
    config = uvicorn.Config(
        app,
        host=args.host,
        port=args.port,
        log_level="warning",
        timeout_graceful_shutdown=GRACEFUL_SHUTDOWN_S,
    )
    server = uvicorn.Server(config)
    workers: list[subprocess.Popen[bytes]] = []
    url = f"http://{args.host}:{args.port}"
    if args.local_workers:
        threading.Thread(
            target=_start_local_workers,
            args=(server, settings, url, args.local_workers, workers),
            daemon=True,
        ).start()
    print(
        f"autotune serve: {url} (data: {settings.data_dir}; admin token in "
        f"{settings.data_dir / 'admin.token'})",
        file=sys.stderr,
        flush=True,
    )
    # uvicorn re-raises SIGTERM after its graceful shutdown; let it land here, so the
    # local workers below are stopped too instead of outliving the service.
    signal.signal(signal.SIGTERM, lambda _signum, _frame: None)
    try:
        server.run()
    finally:
        for process in workers:
            process.terminate()
        for process in workers:
            try:
                process.wait(timeout=15)
            except subprocess.TimeoutExpired:
                process.kill()
                process.wait()
    return 0


def _start_local_workers(
    server: Any, settings: Any, url: str, count: int, workers: list[subprocess.Popen[bytes]]
) -> None:
    from service.tokens import REGISTRATION_TOKEN_FILE

    while not server.started:
        if server.should_exit:
            return
        time.sleep(0.05)
    secret = settings.registration_secret or (
        (settings.data_dir / REGISTRATION_TOKEN_FILE).read_text().strip()
    )
    on_parent_death = _parent_death_signal()
    for index in range(count):
        command = [sys.executable, "-m", "service.cli", "worker", "--server", url]
        command += ["--token", secret, "--name", f"local-{index}"]
        workers.append(
            subprocess.Popen(command, stdin=subprocess.DEVNULL, preexec_fn=on_parent_death)
        )
    # The parent-death signal fires when the spawning *thread* ends: keep it alive for as
    # long as the service runs (the main thread stops the workers on shutdown).
    while not server.should_exit:
        time.sleep(0.5)


def _parent_death_signal() -> Callable[[], None] | None:
    """For a local worker on Linux: a function that, run between fork and exec, makes the
    child receive SIGTERM when the service dies (even by SIGKILL). Prepared in the parent:
    the forked child of a threaded process must not import anything."""
    if not sys.platform.startswith("linux"):
        return None
    prctl = ctypes.CDLL(None).prctl
    return functools.partial(prctl, PR_SET_PDEATHSIG, signal.SIGTERM)


# -- jobs --------------------------------------------------------------------------------------


def _job_options(args: argparse.Namespace) -> dict[str, Any]:
    options: dict[str, Any] = {}
    if args.options:
        try:
            options = json.loads(args.options)
        except json.JSONDecodeError as err:
            raise CliError(f"--options is not JSON: {err}") from None
        if not isinstance(options, dict):
            raise CliError("--options must be a JSON object")
    if args.batch_size is not None:
        options["batch_size"] = args.batch_size
    return options


def _cmd_submit(args: argparse.Namespace) -> int:
    if args.trials <= 0:
        raise CliError("--trials must be a positive number")
    path = Path(args.model)
    client = _client(args)
    if not path.is_file():
        raise CliError(f"no such file: {path}")
    from ir.frontend.onnx.bindings import parse_shape_bindings
    from service.cli.artifact_commands import upload_model

    model_id = upload_model(client, path, parse_shape_bindings(args.shape))
    body: dict[str, Any] = {
        "model_id": model_id,
        "target": args.target,
        "trials": args.trials,
        "options": _job_options(args),
    }
    if args.time_limit is not None:
        body["time_limit_s"] = args.time_limit
    job = client.json("POST", "/v1/jobs", json=body)
    if not args.wait:
        print(json.dumps(job, indent=2) if args.json else job["id"])
        return 0
    print(f"job {job['id']}: {len(job['tasks'])} tasks, {args.trials} trials", file=sys.stderr)
    bar = ProgressBar(sys.stderr)
    job = _follow(client, job, bar)
    bar.close()
    print(json.dumps(job, indent=2) if args.json else format_job(job))
    return 0 if job["state"] == "completed" else 1


def _follow(client: ServiceClient, job: dict[str, Any], bar: ProgressBar) -> dict[str, Any]:
    """Show a job's progress events until it ends; reconnects while the service restarts
    (for up to RECONNECT_S without an answer)."""
    path = f"/v1/jobs/{job['id']}"
    last_answer = time.monotonic()
    while True:
        try:
            for event, data in client.events(f"{path}/events"):
                last_answer = time.monotonic()
                if event == "progress":
                    bar.show(data)
            job = client.json("GET", path)
        except ClientError:
            if time.monotonic() - last_answer > RECONNECT_S:
                raise
            time.sleep(1.0)
            continue
        if job["state"] in FINAL_STATES:
            return job


def _cmd_status(args: argparse.Namespace) -> int:
    job = _client(args).json("GET", f"/v1/jobs/{args.job}")
    print(json.dumps(job, indent=2) if args.json else format_job(job))
    return 0


def _cmd_logs(args: argparse.Namespace) -> int:
    client = _client(args)
    params: dict[str, Any] = {"job_id": args.job}
    if args.format == "jsonl":
        params["best"] = args.best
        sys.stdout.write(client.request("GET", "/v1/records/export", params=params).text)
        return 0
    items: list[dict[str, Any]] = []
    offset = 0
    while True:
        page = client.json(
            "GET", "/v1/records", params={**params, "best": args.best, "offset": offset}
        )["items"]
        items.extend(page)
        offset += len(page)
        if not page or args.best:
            break
    print(format_records_table(items))
    return 0


# -- records and tokens --------------------------------------------------------------------------


def _cmd_records_export(args: argparse.Namespace) -> int:
    params = {
        key: value
        for key, value in {
            "job_id": args.job, "workload_key": args.workload, "target": args.target,
        }.items()
        if value is not None
    }  # fmt: skip
    params["best"] = args.best
    text = _client(args).request("GET", "/v1/records/export", params=params).text
    if args.output:
        Path(args.output).write_text(text)
        print(f"wrote {text.count(chr(10))} records to {args.output}", file=sys.stderr)
    else:
        sys.stdout.write(text)
    return 0


def _cmd_records_import(args: argparse.Namespace) -> int:
    data = Path(args.file).read_bytes()
    result = _client(args).json(
        "POST", "/v1/records/import", content=data,
        headers={"Content-Type": "application/x-ndjson"},
    )  # fmt: skip
    print(f"imported {result['imported']} records ({result['duplicates']} already present)")
    return 0


def _cmd_token_create(args: argparse.Namespace) -> int:
    created = _client(args).json("POST", "/v1/tokens", json={"name": args.name, "kind": args.kind})
    print(f"token {created['id']} ({created['kind']}): {created['token']}", file=sys.stderr)
    print(created["token"])
    return 0


def _cmd_token_revoke(args: argparse.Namespace) -> int:
    revoked = _client(args).json("DELETE", f"/v1/tokens/{args.token_id}")
    print(f"revoked token {revoked['id']} ({revoked['name']})")
    return 0


def _cmd_token_list(args: argparse.Namespace) -> int:
    for token in _client(args).json("GET", "/v1/tokens")["items"]:
        state = "revoked" if token["revoked_at"] else "active"
        print(f"{token['id']}  {token['kind']:<6}  {state:<7}  {token['name']}")
    return 0
