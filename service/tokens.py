"""API tokens: created at random, stored as their sha256, checked in constant time.

Kinds: `admin` (everything, including tokens), `user` (the API except tokens) and
`worker` (its own worker's calls only). On first start the service writes an admin token
and the worker registration secret into the data directory with mode 0600.
"""

from __future__ import annotations

import hashlib
import hmac
import os
import secrets
import time
import uuid
from dataclasses import dataclass
from pathlib import Path

from sqlalchemy import select
from sqlalchemy.exc import IntegrityError
from sqlalchemy.orm import Session

from service.db.models import SecretRow, TokenRow
from service.errors import Forbidden, InvalidInput, NotFound, Unauthorized

KINDS = ("admin", "user", "worker")
ADMIN_TOKEN_FILE = "admin.token"
REGISTRATION_TOKEN_FILE = "registration.token"
REGISTRATION_SECRET_NAME = "registration"


@dataclass(frozen=True)
class Principal:
    """Who a request comes from."""

    token_id: str
    kind: str
    worker_id: str | None = None

    def require(self, *kinds: str) -> None:
        """Raise Forbidden unless this principal is one of `kinds`."""
        if self.kind not in kinds:
            raise Forbidden(f"a {self.kind} token may not do this (needs {' or '.join(kinds)})")


def hash_token(secret: str) -> str:
    """The sha256 hex of a token's secret (what the database keeps)."""
    return hashlib.sha256(secret.encode()).hexdigest()


def create_token(
    session: Session, name: str, kind: str, worker_id: str | None = None
) -> tuple[TokenRow, str]:
    """A new token row and its secret (shown once, never stored)."""
    if kind not in KINDS:
        raise InvalidInput(f"unknown token kind {kind!r}; known: {', '.join(KINDS)}")
    if not name.strip():
        raise InvalidInput("a token needs a non-empty name")
    secret = "at_" + secrets.token_urlsafe(32)
    row = TokenRow(
        id=uuid.uuid4().hex,
        name=name[:200],
        kind=kind,
        token_hash=hash_token(secret),
        worker_id=worker_id,
        created_at=time.time(),
        revoked_at=None,
    )
    session.add(row)
    session.flush()
    return row, secret


def revoke_token(session: Session, token_id: str) -> TokenRow:
    """Revoke a token by id (idempotent); raises NotFound for an unknown id."""
    row = session.get(TokenRow, token_id)
    if row is None:
        raise NotFound(f"no token {token_id!r}")
    if row.revoked_at is None:
        row.revoked_at = time.time()
    return row


def list_tokens(session: Session) -> list[TokenRow]:
    """Every token (hashes only), oldest first."""
    return list(session.scalars(select(TokenRow).order_by(TokenRow.created_at)))


def authenticate(session: Session, secret: str | None) -> Principal:
    """The principal of a bearer token; Unauthorized when missing, unknown or revoked."""
    if not secret:
        raise Unauthorized("missing bearer token (Authorization: Bearer <token>)")
    digest = hash_token(secret)
    row = session.scalars(select(TokenRow).where(TokenRow.token_hash == digest)).first()
    # The lookup is by hash; the final comparison runs in constant time all the same.
    if row is None or not hmac.compare_digest(row.token_hash, digest) or row.revoked_at:
        raise Unauthorized("unknown or revoked token")
    return Principal(row.id, row.kind, row.worker_id)


def check_registration_secret(expected: str, given: str | None) -> None:
    """Raise Unauthorized unless `given` is the registration secret (constant time)."""
    if not given or not hmac.compare_digest(expected.encode(), given.encode()):
        raise Unauthorized("registering a worker needs the registration secret as bearer token")


def write_secret_file(path: Path, secret: str) -> None:
    """Write a secret to `path` with mode 0600 (created so, never world-readable)."""
    path.parent.mkdir(parents=True, exist_ok=True)
    descriptor = os.open(path, os.O_WRONLY | os.O_CREAT | os.O_TRUNC, 0o600)
    with os.fdopen(descriptor, "w") as file:
        file.write(secret + "\n")
    os.chmod(path, 0o600)


def registration_secret(session: Session, data_dir: Path, configured: str) -> str:
    """The configured registration secret, or the service's own: kept in the database, so
    every replica on it accepts the same workers (made on first start, from the one in the
    data directory when an older service left one there), and written to
    <data_dir>/registration.token for the operator."""
    if configured:
        return configured
    path = data_dir / REGISTRATION_TOKEN_FILE
    row = session.get(SecretRow, REGISTRATION_SECRET_NAME)
    if row is None:
        from_file = path.read_text().strip() if path.exists() else ""
        candidate = from_file or "reg_" + secrets.token_urlsafe(32)
        try:
            with session.begin_nested():  # another replica starting at once: its secret
                session.add(SecretRow(name=REGISTRATION_SECRET_NAME, value=candidate))
        except IntegrityError:
            pass
        row = session.get(SecretRow, REGISTRATION_SECRET_NAME)
        assert row is not None
    if not path.exists() or path.read_text().strip() != row.value:
        write_secret_file(path, row.value)
    return row.value


def ensure_admin_token(session: Session, data_dir: Path) -> None:
    """On first start, create an admin token and write it to <data_dir>/admin.token.

    A token file whose token the database does not know (a new database) is replaced.
    """
    path = data_dir / ADMIN_TOKEN_FILE
    if path.exists():
        secret = path.read_text().strip()
        row = session.scalars(
            select(TokenRow).where(TokenRow.token_hash == hash_token(secret))
        ).first()
        if row is not None and row.revoked_at is None:
            return
    _, secret = create_token(session, "admin (created on first start)", "admin")
    write_secret_file(path, secret)
