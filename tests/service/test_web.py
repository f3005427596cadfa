"""The web page in headless Chromium against a real `autotune serve` whose job has records.

A worker measures a small job to completion first; then the jobs list, the job page's
tuning curve and the fleet table must render that data, and the token must be taken from
`?token=` once, kept in sessionStorage and removed from the address.

Chromium is Debian's (/usr/bin/chromium), driven by the playwright package; nothing is
downloaded. Without chromium the tests skip, except under CI=1, where they fail.
"""

from __future__ import annotations

import os
import shutil
import sys
from collections.abc import Iterator
from dataclasses import dataclass
from typing import Any

import httpx
import pytest

from tests.workers.service_process import (
    RunningService,
    running_service,
    stop_process,
    tiny_workload,
)

pytestmark = pytest.mark.slow

CHROMIUM = shutil.which("chromium") or (
    "/usr/bin/chromium" if os.path.exists("/usr/bin/chromium") else None
)
CHROMIUM_ARGS = [
    "--headless",
    "--no-sandbox",
    "--disable-gpu",
    "--disable-quic",
    "--no-first-run",
    "--disable-background-networking",
    "--disable-component-update",
    "--disable-sync",
]


def _require_chromium() -> str:
    if CHROMIUM is None:
        message = "chromium is not installed (apt-get install chromium); .ci/run installs it"
        if os.environ.get("CI"):
            pytest.fail(message)
        pytest.skip(message)
    return CHROMIUM


@dataclass
class TunedService:
    """A running service with one completed job measured by one worker."""

    service: RunningService
    job: dict[str, Any]
    worker_name: str


@pytest.fixture(scope="module")
def tuned(tmp_path_factory: pytest.TempPathFactory) -> Iterator[TunedService]:
    _require_chromium()
    with running_service(tmp_path_factory.mktemp("web") / "data") as service:
        job_id = service.create_job(tiny_workload(), trials=4, batch_size=4)
        worker = service.worker("--burst", "--lease-wait-s", "5", "--name", "web-worker")
        code, stderr = stop_process(worker, timeout_s=240)
        assert code == 0, stderr
        job = service.wait_for_job(job_id, timeout_s=30)
        assert job["state"] == "completed", job
        yield TunedService(service, service.job(job_id), "web-worker")


@pytest.fixture(scope="module")
def browser(tuned: TunedService) -> Iterator[Any]:
    from playwright.sync_api import sync_playwright

    with sync_playwright() as playwright:
        browser = playwright.chromium.launch(
            executable_path=_require_chromium(), args=CHROMIUM_ARGS
        )
        yield browser
        browser.close()


@pytest.fixture
def page(browser: Any) -> Iterator[Any]:
    context = browser.new_context()
    page = context.new_page()
    errors: list[str] = []
    page.on("pageerror", lambda error: errors.append(str(error)))
    yield page
    context.close()
    assert errors == [], errors


def test_the_jobs_list_shows_the_job_and_the_token_leaves_the_address(
    tuned: TunedService, page: Any
) -> None:
    service, job = tuned.service, tuned.job
    page.goto(f"{service.url}/?token={service.admin_token}")
    row = page.locator(f'#jobs-table tr.job-row[data-job-id="{job["id"]}"]')
    row.wait_for(timeout=15_000)
    assert "completed" in row.inner_text()
    assert f"{job['trials_done']} / {job['trials']}" in row.inner_text()
    assert "token" not in page.url
    stored = page.evaluate("sessionStorage.getItem('autotune.token')")
    assert stored == service.admin_token
    row.locator("a").click()  # to the job page, the token still in the tab's storage
    page.wait_for_url(f"**/jobs/{job['id']}")
    page.locator("svg.curve").first.wait_for(timeout=15_000)


def test_the_job_page_draws_a_tuning_curve_per_task(tuned: TunedService, page: Any) -> None:
    service, job = tuned.service, tuned.job
    page.goto(f"{service.url}/jobs/{job['id']}?token={service.admin_token}")
    curves = page.locator("section.task svg.curve")
    curves.first.wait_for(timeout=15_000)
    assert curves.count() == len(job["tasks"]) == 1
    (task,) = job["tasks"]
    points = [p for p in task["curve"] if p["best_gflops"] is not None]
    assert points, task
    assert curves.first.get_attribute("data-points") == str(len(points))
    path = page.locator("section.task svg.curve path.curve-line").get_attribute("d")
    assert path and path.startswith("M")
    facts = page.locator("section.task .task-facts").inner_text()
    assert f"{task['best_gflops']:.2f} GFLOPS" in facts
    assert task["name"] in page.locator("section.task h2").inner_text()


def test_the_fleet_table_lists_the_worker(tuned: TunedService, page: Any) -> None:
    service = tuned.service
    page.goto(f"{service.url}/fleet?token={service.admin_token}")
    row = page.locator("#fleet-table tr.worker-row")
    row.first.wait_for(timeout=15_000)
    assert row.count() == 1
    text = row.first.inner_text()
    assert tuned.worker_name in text
    with service.client() as client:
        (worker,) = client.get("/v1/workers").json()["items"]
    assert worker["target"] in text and str(worker["measured"]) in text


def test_without_a_valid_token_the_page_asks_for_one(tuned: TunedService, page: Any) -> None:
    service = tuned.service
    page.goto(f"{service.url}/")
    assert "Paste an API token" in page.locator("#status").inner_text()
    page.fill("#token-input", "not-a-token")
    page.click("#token-form button[type=submit]")
    # A selector wait, not wait_for_function: a string predicate polled in the page is an
    # eval, which the page's Content-Security-Policy (rightly) refuses once it needs a
    # second poll, so that version failed whenever the 401 took longer than the first one.
    page.locator("#status.error").wait_for()
    assert "refused the token (401" in page.locator("#status").inner_text()
    assert page.locator("#jobs-table").count() == 0


def test_pages_and_assets_need_no_token_and_carry_a_strict_policy(tuned: TunedService) -> None:
    with httpx.Client(base_url=tuned.service.url) as client:
        for path in ("/", f"/jobs/{tuned.job['id']}", "/fleet", "/web/app.js", "/web/style.css"):
            answer = client.get(path)
            assert answer.status_code == 200, path
            assert "script-src 'self'" in answer.headers["content-security-policy"]
        assert client.get("/web/secrets.txt").status_code == 404
        assert client.get("/v1/jobs").status_code == 401  # the data itself needs the token


def test_without_chromium_the_tests_skip_but_fail_under_ci(
    monkeypatch: pytest.MonkeyPatch,
) -> None:
    monkeypatch.setattr(sys.modules[__name__], "CHROMIUM", None)
    monkeypatch.delenv("CI", raising=False)
    with pytest.raises(pytest.skip.Exception, match="chromium is not installed"):
        _require_chromium()
    monkeypatch.setenv("CI", "1")
    with pytest.raises(pytest.fail.Exception, match="chromium is not installed"):
        _require_chromium()
