"""Progress and tables of the command line, drawn with rich.

On a terminal a progress display is a live bar of trials with their rate, the time spent
and the time left, a status text beside it and per-task lines printed above it; written to
a file or a pipe (logs, CI) it is one plain line per change, which stays greppable. Tables
are rich tables rendered to text, the same on a terminal and elsewhere.
"""

from __future__ import annotations

import io
from typing import Any, TextIO

from rich.console import Console
from rich.progress import (
    BarColumn,
    MofNCompleteColumn,
    Progress,
    ProgressColumn,
    Task,
    TaskID,
    TextColumn,
    TimeElapsedColumn,
    TimeRemainingColumn,
)
from rich.table import Table
from rich.text import Text

TABLE_WIDTH = 120  # columns a table is rendered into (its cells are cut to fit)


class _TrialRate(ProgressColumn):
    """Trials per second, as rich estimates it from the last updates."""

    def render(self, task: Task) -> Text:
        speed = task.finished_speed or task.speed
        return Text("-/s" if speed is None else f"{speed:.1f}/s")


class TrialProgress:
    """Trials done out of a total, shown live on a terminal and as plain lines elsewhere
    (see the module docstring)."""

    def __init__(self, stream: TextIO, description: str = "tuning") -> None:
        self.stream = stream
        self.console = Console(file=stream, highlight=False)
        self.interactive = self.console.is_terminal
        self.description = description
        self._progress: Progress | None = None
        self._task: TaskID | None = None
        self._last = ""

    def update(self, done: int, total: int, status: str, line: str | None = None) -> None:
        """Show `done` of `total` trials and `status`. `line`, where given, is a line of
        its own: printed above the bar on a terminal, and in place of the default plain
        line (`done/total trials  status`) elsewhere."""
        if not self.interactive:
            text = line if line is not None else f"{done}/{total} trials  {status}"
            if text != self._last:
                self._last = text
                self.stream.write(text + "\n")
                self.stream.flush()
            return
        if self._progress is None:
            self._progress = Progress(
                TextColumn("{task.description}"),
                BarColumn(bar_width=24),
                MofNCompleteColumn(),
                TextColumn("trials"),
                _TrialRate(),
                TimeElapsedColumn(),
                TextColumn("left"),
                TimeRemainingColumn(),
                TextColumn("{task.fields[status]}", markup=False),
                console=self.console,
            )
            self._progress.start()
            self._task = self._progress.add_task(
                self.description, total=total, completed=done, status=status
            )
        assert self._task is not None
        if line is not None:
            self._progress.console.print(line, markup=False, highlight=False)
        self._progress.update(self._task, completed=done, total=total, status=status)

    def close(self) -> None:
        """End the display (the bar stays on the terminal as it last was)."""
        if self._progress is not None:
            self._progress.stop()
            self._progress = None


class ProgressBar:
    """A service job's trials (the API's JobDetail JSON), as a `TrialProgress`."""

    def __init__(self, stream: TextIO) -> None:
        self.progress = TrialProgress(stream, "job")

    def show(self, job: dict[str, Any]) -> None:
        """Show a job detail's trials, tasks measured and state."""
        total = max(1, int(job["trials"]))
        done = min(total, int(job["trials_done"]))
        tasks = job.get("tasks", [])
        measured = sum(1 for t in tasks if t.get("best_cost_s") is not None)
        status = f"{measured}/{len(tasks)} tasks measured  {job['state']}"
        if job["state"] == "waiting_for_worker" and job.get("error"):
            status += f": {job['error']}"  # (which target it waits for, and who is there)
        self.progress.update(done, total, status)

    def close(self) -> None:
        """End the display."""
        self.progress.close()


def render_table(table: Table) -> str:
    """A rich table as plain text (no colours), TABLE_WIDTH columns at most."""
    buffer = io.StringIO()
    Console(file=buffer, width=TABLE_WIDTH, color_system=None, highlight=False).print(table)
    return "\n".join(line.rstrip() for line in buffer.getvalue().rstrip("\n").splitlines())


def text_table(*columns: tuple[str, str]) -> Table:
    """An empty table of the given (header, justify) columns, in the command line's style:
    a header line, then a line a row (no rules: a line a record, for grep and wc)."""
    table = Table(box=None, pad_edge=False, show_edge=False)
    for header, justify in columns:
        table.add_column(header, justify=justify)  # type: ignore[arg-type]
    return table


def _gflops(value: float | None) -> str:
    return f"{value:.2f}" if value else "-"


def format_job(job: dict[str, Any]) -> str:
    """A job detail as text: its state, then a table of its tasks."""
    lines = [
        f"job {job['id']}  {job['state']}  {job['trials_done']}/{job['trials']} trials  "
        f"target {job['target']}",
    ]
    if job.get("error"):
        label = "waiting" if job["state"] == "waiting_for_worker" else "error"
        lines.append(f"{label}: {job['error']}")
    table = text_table(
        ("#", "right"), ("task", "left"), ("weight", "right"), ("trials", "right"),
        ("best GFLOPS", "right"),
    )  # fmt: skip
    for task in job.get("tasks", []):
        table.add_row(
            str(task["position"]), task["name"], str(task["weight"]), str(task["trials"]),
            _gflops(task["best_gflops"]),
        )  # fmt: skip
    return "\n".join([*lines, render_table(table)])


def format_records_table(records: list[dict[str, Any]]) -> str:
    """Records as a table: id, workload, status, median cost, worker."""
    table = text_table(
        ("id", "right"), ("workload", "left"), ("status", "left"), ("median ms", "right"),
        ("worker", "left"),
    )  # fmt: skip
    for record in records:
        median = record.get("median_cost_s")
        table.add_row(
            str(record["id"]), record["workload_key"][:12], record["status"],
            f"{median * 1e3:.4f}" if median is not None else "-", record.get("worker") or "-",
        )  # fmt: skip
    return render_table(table)
