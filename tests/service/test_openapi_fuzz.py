"""schemathesis against /openapi.json: a few generated requests per operation, no 5xx."""

from __future__ import annotations

import httpx
import schemathesis
from hypothesis import HealthCheck, given, settings

from tests.service.conftest import LiveService

EXAMPLES_PER_OPERATION = 4


@schemathesis.serializer("application/x-ndjson")
def _ndjson(_context: object, value: object) -> bytes:
    return value.encode(errors="surrogatepass") if isinstance(value, str) else repr(value).encode()


def test_no_operation_answers_5xx(live: LiveService) -> None:
    with live.client() as client:
        spec = client.get("/openapi.json").json()
        schema = schemathesis.openapi.from_dict(spec)
        operations = [result.ok() for result in schema.get_all_operations()]
        assert len(operations) >= 15
        failures: list[str] = []
        for operation in operations:

            @settings(
                max_examples=EXAMPLES_PER_OPERATION,
                deadline=None,
                database=None,
                suppress_health_check=list(HealthCheck),
            )
            @given(case=operation.as_strategy())
            def call(case: schemathesis.Case) -> None:
                headers = {k: str(v) for k, v in (case.headers or {}).items()}
                headers["Authorization"] = f"Bearer {live.admin_token}"
                path = case.formatted_path
                try:
                    response = client.request(
                        case.method,
                        path,
                        params=case.query,
                        headers=headers,
                        content=_body(case),
                        timeout=30,
                    )
                except httpx.HTTPError as err:
                    failures.append(f"{case.method} {path}: {err}")
                    return
                if response.status_code >= 500:
                    failures.append(f"{case.method} {path}: {response.status_code}")

            call()
        assert failures == []


def _body(case: schemathesis.Case) -> bytes | None:
    import json

    body = case.body
    if body is None or isinstance(body, schemathesis.core.NotSet):
        return None
    if isinstance(body, bytes):
        return body
    if isinstance(body, str):
        return body.encode(errors="surrogatepass")
    return json.dumps(body).encode()
