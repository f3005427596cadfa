"""The web page: jobs, a job's per-task tuning curves, and the fleet.

`router` serves an HTML shell for `/`, `/jobs/{job_id}` and `/fleet`, and its own
stylesheet and script under `/web/`. The pages hold no data: the script (vendored here,
no CDN) reads the JSON API under `/v1` with the bearer token the user gave it and draws
the curves as inline SVG. See service/web/routes.py for how the token is handled.
"""

from service.web.routes import router

__all__ = ["router"]
