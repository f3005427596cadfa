"""Routes of the web page: one HTML shell per page, plus the vendored script and stylesheet.

The token: every API call needs a bearer token, and a page cannot send one by itself. The
script asks for it once (a field in the page header), or takes it from `?token=...` in the
address (then removes it from the address bar and history), and keeps it in the tab's
sessionStorage: it is sent as `Authorization: Bearer` to `/v1` only, never in a URL the
page requests, and it is gone when the tab closes. The shell pages and assets need no
token and contain no data, so serving them without one reveals nothing.

A strict Content-Security-Policy allows only this origin's script, style and API calls.
"""

from __future__ import annotations

import html
from importlib import resources
from typing import Annotated

from fastapi import APIRouter, HTTPException, Path
from fastapi.responses import HTMLResponse, Response

router = APIRouter(include_in_schema=False)

_ASSETS = {
    "app.js": "text/javascript; charset=utf-8",
    "style.css": "text/css; charset=utf-8",
}
_SECURITY_HEADERS = {
    "Content-Security-Policy": (
        "default-src 'none'; script-src 'self'; style-src 'self'; connect-src 'self'; "
        "img-src 'self' data:; base-uri 'none'; form-action 'none'; frame-ancestors 'none'"
    ),
    "X-Content-Type-Options": "nosniff",
    "Referrer-Policy": "no-referrer",
    "Cache-Control": "no-store",
}
JobId = Annotated[str, Path(min_length=1, max_length=200)]


def _asset_text(name: str) -> str:
    return resources.files("service.web").joinpath("static", name).read_text(encoding="utf-8")


def render_shell(page: str, job_id: str = "") -> str:
    """The HTML of one page: a header with the token field and an empty main element that
    the script fills (`data-page` says which page, `data-job` which job)."""
    title = {"jobs": "Jobs", "job": f"Job {job_id}", "fleet": "Fleet"}[page]
    return _asset_text("page.html").format(
        title=html.escape(title),
        page=html.escape(page, quote=True),
        job_id=html.escape(job_id, quote=True),
    )


def _page(page: str, job_id: str = "") -> HTMLResponse:
    return HTMLResponse(render_shell(page, job_id), headers=_SECURITY_HEADERS)


@router.get("/", response_class=HTMLResponse)
def jobs_page() -> HTMLResponse:
    """The jobs list."""
    return _page("jobs")


@router.get("/jobs/{job_id}", response_class=HTMLResponse)
def job_page(job_id: JobId) -> HTMLResponse:
    """One job: its state and a tuning curve per task."""
    return _page("job", job_id)


@router.get("/fleet", response_class=HTMLResponse)
def fleet_page() -> HTMLResponse:
    """The workers and their health."""
    return _page("fleet")


@router.get("/web/{name}")
def asset(name: str) -> Response:
    """The page's script or stylesheet (nothing else is served from here)."""
    media_type = _ASSETS.get(name)
    if media_type is None:
        raise HTTPException(status_code=404, detail=f"no web asset named {name!r}")
    return Response(_asset_text(name), media_type=media_type, headers=_SECURITY_HEADERS)
