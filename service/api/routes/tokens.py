"""/v1/tokens: create, list and revoke API tokens (admin only)."""

from __future__ import annotations

from fastapi import APIRouter

from service.api.convert import token_public
from service.api.deps import Admin, State
from service.schemas import TokenCreate, TokenCreated, TokenPublic, TokensPublic
from service.tokens import create_token, list_tokens, revoke_token

router = APIRouter(prefix="/v1/tokens", tags=["tokens"])


@router.post("", status_code=201, response_model=TokenCreated, summary="Create a token")
def create(body: TokenCreate, state: State, _admin: Admin) -> TokenCreated:
    """A new token; its secret is shown only in this response."""
    with state.session() as session:
        row, secret = create_token(session, body.name, body.kind)
        return TokenCreated(**token_public(row).model_dump(), token=secret)


@router.get("", response_model=TokensPublic, summary="List tokens")
def list_all(state: State, _admin: Admin) -> TokensPublic:
    """Every token, without secrets."""
    with state.session() as session:
        return TokensPublic(items=[token_public(row) for row in list_tokens(session)])


@router.delete("/{token_id}", response_model=TokenPublic, summary="Revoke a token")
def revoke(token_id: str, state: State, _admin: Admin) -> TokenPublic:
    """Revoke a token; later requests with it get 401."""
    with state.session() as session:
        return token_public(revoke_token(session, token_id))
