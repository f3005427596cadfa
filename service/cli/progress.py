"""Text output of the service's CLI commands: the live progress bar, job and record tables."""

from __future__ import annotations

from typing import Any, TextIO

BAR_WIDTH = 30


class ProgressBar:
    """A one-line bar of a job's trials, redrawn in place on a terminal (a line per change
    otherwise)."""

    def __init__(self, stream: TextIO) -> None:
        self.stream = stream
        self.interactive = stream.isatty()
        self.last = ""

    def show(self, job: dict[str, Any]) -> None:
        """Draw the bar for a job detail (the API's JobDetail JSON)."""
        total = max(1, int(job["trials"]))
        done = min(total, int(job["trials_done"]))
        filled = BAR_WIDTH * done // total
        tasks = job.get("tasks", [])
        measured = sum(1 for t in tasks if t.get("best_cost_s") is not None)
        tuned = f"{measured}/{len(tasks)} tasks measured"
        line = (
            f"[{'#' * filled}{'.' * (BAR_WIDTH - filled)}] {done}/{total} trials  "
            f"{tuned}  {job['state']}"
        )
        if job["state"] == "waiting_for_worker" and job.get("error"):
            line += f": {job['error']}"  # (which target it waits for, and who is there)
        if line == self.last:
            return
        self.last = line
        if self.interactive:
            self.stream.write("\r" + line)
        else:
            self.stream.write(line + "\n")
        self.stream.flush()

    def close(self) -> None:
        """End the bar's line."""
        if self.interactive and self.last:
            self.stream.write("\n")
            self.stream.flush()


def _gflops(value: float | None) -> str:
    return f"{value:.2f}" if value else "-"


def format_job(job: dict[str, Any]) -> str:
    """A job detail as text: its state and one line per task."""
    lines = [
        f"job {job['id']}  {job['state']}  {job['trials_done']}/{job['trials']} trials  "
        f"target {job['target']}",
    ]
    if job.get("error"):
        label = "waiting" if job["state"] == "waiting_for_worker" else "error"
        lines.append(f"{label}: {job['error']}")
    lines.append(f"{'#':>3}  {'task':<44}{'weight':>7}{'trials':>8}{'best GFLOPS':>13}")
    for task in job.get("tasks", []):
        lines.append(
            f"{task['position']:>3}  {task['name'][:43]:<44}{task['weight']:>7}"
            f"{task['trials']:>8}{_gflops(task['best_gflops']):>13}"
        )
    return "\n".join(lines)


def format_records_table(records: list[dict[str, Any]]) -> str:
    """Records as a table: id, workload, status, median cost, worker."""
    lines = [f"{'id':>7}  {'workload':<14}{'status':<15}{'median ms':>11}  worker"]
    for record in records:
        median = record.get("median_cost_s")
        cost = f"{median * 1e3:.4f}" if median is not None else "-"
        lines.append(
            f"{record['id']:>7}  {record['workload_key'][:12]:<14}{record['status']:<15}"
            f"{cost:>11}  {record.get('worker') or '-'}"
        )
    return "\n".join(lines)
