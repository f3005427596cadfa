"""Dependencies of the routes: the app's state, a unit of work, the caller's principal."""

from __future__ import annotations

from collections.abc import Callable, Iterator
from contextlib import contextmanager
from dataclasses import dataclass
from typing import Annotated

from fastapi import Depends, Request
from fastapi.security import HTTPAuthorizationCredentials, HTTPBearer
from sqlalchemy.orm import Session, sessionmaker

from service.db.engine import unit_of_work
from service.settings import Settings
from service.tokens import Principal, authenticate


@dataclass
class AppState:
    """What every request may use: settings, sessions and the registration secret."""

    settings: Settings
    factory: sessionmaker[Session]
    registration_secret: str
    shutting_down: Callable[[], bool] = lambda: False  # long polls and streams end early

    @contextmanager
    def session(self) -> Iterator[Session]:
        """A unit of work: committed when the block ends, rolled back on error."""
        with unit_of_work(self.factory) as session:
            yield session


def get_state(request: Request) -> AppState:
    """The app's state."""
    state: AppState = request.app.state.autotune
    return state


bearer = HTTPBearer(auto_error=False, description="an API token (autotune token create)")

State = Annotated[AppState, Depends(get_state)]
Credentials = Annotated[HTTPAuthorizationCredentials | None, Depends(bearer)]


def bearer_secret(credentials: HTTPAuthorizationCredentials | None) -> str | None:
    """The bearer token of a request, if any."""
    return credentials.credentials if credentials is not None else None


def get_principal(state: State, credentials: Credentials) -> Principal:
    """The caller, from its bearer token (401 when missing or unknown)."""
    with state.session() as session:
        return authenticate(session, bearer_secret(credentials))


def get_user(principal: Annotated[Principal, Depends(get_principal)]) -> Principal:
    """A caller with a user or admin token (workers may not use the user API)."""
    principal.require("admin", "user")
    return principal


def get_admin(principal: Annotated[Principal, Depends(get_principal)]) -> Principal:
    """A caller with an admin token."""
    principal.require("admin")
    return principal


Caller = Annotated[Principal, Depends(get_principal)]
User = Annotated[Principal, Depends(get_user)]
Admin = Annotated[Principal, Depends(get_admin)]
MAX_OFFSET = 1_000_000_000  # larger offsets overflow SQLite integers
