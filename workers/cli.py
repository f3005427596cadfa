"""The worker's command line, the same under `autotune worker` and `python -m workers`
(a worker install needs neither the service package nor its dependencies).

Only argument parsing lives here; the agent is `workers.agent`.
"""

from __future__ import annotations

import argparse
import logging
import os
import socket
import sys
from collections.abc import Sequence

from workers.client import WorkerError

DEFAULT_SERVER = "http://127.0.0.1:8000"
DESCRIPTION = (
    "Register with a service using its registration secret, then lease batches of "
    "candidates for this machine's exact target, measure each one in a child process and "
    "post the results. SIGTERM or Ctrl-C stops after the current candidate: measured "
    "results are posted, the rest of the batch is released."
)


def add_worker_arguments(parser: argparse.ArgumentParser) -> None:
    """The worker's options, added to `parser`."""
    parser.add_argument(
        "--server",
        default=os.environ.get("AUTOTUNE_SERVER", DEFAULT_SERVER),
        metavar="URL",
        help=(
            f"the service's base URL (default: $AUTOTUNE_SERVER or {DEFAULT_SERVER}); "
            "replicas of one service, separated by commas: the worker moves to the next "
            "when one stops answering"
        ),
    )
    parser.add_argument(
        "--token",
        default=os.environ.get("AUTOTUNE_REGISTRATION_SECRET"),
        metavar="SECRET",
        help=(
            "the registration secret (<data dir>/registration.token of the service; "
            "default: $AUTOTUNE_REGISTRATION_SECRET)"
        ),
    )
    parser.add_argument(
        "--burst", action="store_true", help="exit when a lease poll finds no work left"
    )
    parser.add_argument(
        "--name", default=None, metavar="N", help="a name for the fleet view (default: hostname)"
    )
    parser.add_argument(
        "--device",
        default="cpu",
        metavar="DEVICE",
        help=(
            "what to measure on: cpu (the default) or cuda:N, GPU N (needs pycuda: "
            "pip install autotune[gpu], a CUDA driver and nvcc); a GPU worker reports the "
            "exact target cuda -arch=sm_XX"
        ),
    )
    parser.add_argument(
        "--lease-wait-s",
        type=float,
        default=20.0,
        metavar="S",
        help="how long one lease long poll waits for work (at most 60; default 20)",
    )
    parser.add_argument("--quiet", action="store_true", help="log warnings and errors only")


def run_worker(args: argparse.Namespace) -> int:
    """Run the agent the parsed `args` describe until it stops; its exit status.
    WorkerError when an argument is wrong or the device cannot be used."""
    from workers.agent import Agent, AgentConfig
    from workers.client import ServiceClient
    from workers.device import detect_device

    if not args.token:
        raise WorkerError(
            "--token is required: pass the service's registration secret "
            "(<data dir>/registration.token) or set AUTOTUNE_REGISTRATION_SECRET"
        )
    if not 0 < args.lease_wait_s <= 60:
        raise WorkerError(f"--lease-wait-s must be in (0, 60]; got {args.lease_wait_s:g}")
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


def main(argv: Sequence[str] | None = None) -> int:
    """`python -m workers`: the worker alone; errors are one line and exit status 1."""
    parser = argparse.ArgumentParser(prog="python -m workers", description=DESCRIPTION)
    add_worker_arguments(parser)
    args = parser.parse_args(argv)
    try:
        return run_worker(args)
    except (WorkerError, OSError) as err:
        print(f"autotune worker: error: {err}", file=sys.stderr)
        return 1
    except KeyboardInterrupt:
        print("autotune worker: interrupted", file=sys.stderr)
        return 130
