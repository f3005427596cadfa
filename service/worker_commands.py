"""`autotune worker`: run a measurement agent against a service (registered by service.cli).

Only argument parsing lives here; the agent is `workers.agent`, which never imports the
service, so this module calls into `workers/` and nothing else of the service.
"""

from __future__ import annotations

import argparse
import logging
import os
import socket
import sys
from typing import Any

from service.cli import CliError

DEFAULT_SERVER = "http://127.0.0.1:8000"


def register(commands: Any) -> None:
    """Add `autotune worker` to the `autotune` sub-parser collection."""
    worker = commands.add_parser(
        "worker",
        help="measure candidates for a tuning service (register, lease, measure, report)",
        description=(
            "Register with a service using its registration secret, then lease batches of "
            "candidates for this machine's exact target, measure each one in a child "
            "process and post the results. SIGTERM or Ctrl-C stops after the current "
            "candidate: measured results are posted, the rest of the batch is released."
        ),
    )
    worker.add_argument(
        "--server",
        default=os.environ.get("AUTOTUNE_SERVER", DEFAULT_SERVER),
        metavar="URL",
        help=f"the service's base URL (default: $AUTOTUNE_SERVER or {DEFAULT_SERVER})",
    )
    worker.add_argument(
        "--token",
        default=os.environ.get("AUTOTUNE_REGISTRATION_SECRET"),
        metavar="SECRET",
        help=(
            "the registration secret (<data dir>/registration.token of the service; "
            "default: $AUTOTUNE_REGISTRATION_SECRET)"
        ),
    )
    worker.add_argument(
        "--burst", action="store_true", help="exit when a lease poll finds no work left"
    )
    worker.add_argument(
        "--name", default=None, metavar="N", help="a name for the fleet view (default: hostname)"
    )
    worker.add_argument(
        "--device",
        default="cpu",
        metavar="DEVICE",
        help=(
            "what to measure on: cpu (the default) or cuda:N, GPU N (needs pycuda: "
            "pip install autotune[gpu], a CUDA driver and nvcc); a GPU worker reports the "
            "exact target cuda -arch=sm_XX"
        ),
    )
    worker.add_argument(
        "--lease-wait-s",
        type=float,
        default=20.0,
        metavar="S",
        help="how long one lease long poll waits for work (at most 60; default 20)",
    )
    worker.add_argument("--quiet", action="store_true", help="log warnings and errors only")
    worker.set_defaults(handler=_cmd_worker)


def _cmd_worker(args: argparse.Namespace) -> int:
    from workers.agent import Agent, AgentConfig
    from workers.client import ServiceClient
    from workers.device import detect_device

    if not args.token:
        raise CliError(
            "--token is required: pass the service's registration secret "
            "(<data dir>/registration.token) or set AUTOTUNE_REGISTRATION_SECRET"
        )
    if not 0 < args.lease_wait_s <= 60:
        raise CliError(f"--lease-wait-s must be in (0, 60]; got {args.lease_wait_s:g}")
    logging.basicConfig(
        level=logging.WARNING if args.quiet else logging.INFO,
        format="%(asctime)s autotune worker: %(message)s",
        stream=sys.stderr,
    )
    device = detect_device(args.device)
    client = ServiceClient(args.server, args.token)
    config = AgentConfig(
        name=args.name or f"{socket.gethostname()}-{os.getpid()}",
        burst=args.burst,
        lease_wait_s=args.lease_wait_s,
    )
    agent = Agent(client, device, config)
    agent.install_signal_handlers()
    return agent.run()
