"""The command line's progress display and tables (rich): live on a terminal, plain lines
and plain text elsewhere."""

from __future__ import annotations

import io
import re

from service.cli.progress import ProgressBar, TrialProgress, format_job, format_records_table


class _Terminal(io.StringIO):
    def isatty(self) -> bool:
        return True


def _job(done: int, state: str) -> dict[str, object]:
    return {
        "id": "j-1", "state": state, "trials": 4, "trials_done": done, "target": "llvm",
        "tasks": [
            {"position": 0, "name": "fused_nn_dense", "weight": 2, "trials": done,
             "best_gflops": 12.5 if done else None, "best_cost_s": 1e-3 if done else None},
            {"position": 1, "name": "fused_softmax", "weight": 1, "trials": 0,
             "best_gflops": None, "best_cost_s": None},
        ],
    }  # fmt: skip


def test_off_a_terminal_each_change_is_one_plain_line() -> None:
    stream = io.StringIO()
    bar = ProgressBar(stream)
    for done, state in ((0, "queued"), (0, "queued"), (2, "running"), (4, "completed")):
        bar.show(_job(done, state))
    bar.close()
    assert stream.getvalue().splitlines() == [
        "0/4 trials  0/2 tasks measured  queued",
        "2/4 trials  1/2 tasks measured  running",
        "4/4 trials  1/2 tasks measured  completed",
    ]
    given = io.StringIO()
    progress = TrialProgress(given)
    progress.update(1, 3, "est. latency 2 ms", "[1/3] task 0 [bold]")  # (not markup)
    progress.close()
    assert given.getvalue() == "[1/3] task 0 [bold]\n"


def test_on_a_terminal_a_live_bar_with_rate_and_time_left_and_lines_above_it() -> None:
    stream = _Terminal()
    progress = TrialProgress(stream, "tune")
    assert progress.interactive
    for done in (1, 2, 3):
        progress.update(done, 3, f"est. latency {done} ms", f"[{done}/3] task [dim]{done}")
    progress.close()
    text = re.sub(r"\x1b\[[0-9;?]*[a-zA-Z]", "", stream.getvalue())  # (colours, cursor)
    assert "[2/3] task [dim]2" in text  # printed as given, above the bar
    assert "3/3 trials" in text and "/s" in text and "left" in text
    assert "est. latency 3 ms" in text


def test_tables_are_plain_text_with_every_cell() -> None:
    text = format_job(_job(4, "completed"))
    first, *rows = text.splitlines()
    assert first.split()[:2] == ["job", "j-1"] and "4/4 trials" in first
    assert any("fused_nn_dense" in row and "12.50" in row for row in rows)
    assert any("fused_softmax" in row and row.rstrip().endswith("-") for row in rows)
    assert "\x1b" not in text  # no colours
    records = format_records_table(
        [{"id": 7, "workload_key": "abcdef0123456789", "status": "ok", "median_cost_s": 2e-4}]
    )
    assert "abcdef012345 " in records and "0.2000" in records and "median ms" in records
