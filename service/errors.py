"""Domain errors of the service layer; `service.api.errors` maps each to an HTTP status."""

from __future__ import annotations

from ir.errors import AutotuneError


class ServiceError(AutotuneError):
    """Base of the service layer's errors; the message names the problem."""


class InvalidInput(ServiceError):
    """The request's content is wrong (a bad model, target, budget or record)."""


class TooLarge(ServiceError):
    """An upload is over the size limit."""


class NotFound(ServiceError):
    """No such model, job, batch, worker, record or token."""


class Unauthorized(ServiceError):
    """No token, or a token the service does not know (or revoked)."""


class Forbidden(ServiceError):
    """A valid token that may not do this (e.g. another worker's batch)."""


class Conflict(ServiceError):
    """The request no longer fits the state (an expired lease, a finished job)."""
