"""Errors of vnfm. Each carries what a ProblemDetails response needs.

The API turns any ``VnfmError`` into ``application/problem+json`` with
``status``, ``title`` and ``detail``; anything else becomes a 500 whose
detail hides internals.
"""

from __future__ import annotations


class VnfmError(Exception):
    """Base of every error vnfm reports to a user."""

    status = 500
    title = 'Internal Server Error'
    #: Extra HTTP headers of the error response (Allow, Version, ...).
    headers: dict[str, str] | None = None

    def __init__(self, detail: str, **extra: object) -> None:
        super().__init__(detail)
        self.detail = detail
        self.extra = extra

    def to_problem(self) -> dict:
        """The error as a SOL013 ProblemDetails dict."""
        problem = {
            'status': self.status,
            'title': self.title,
            'detail': self.detail,
        }
        problem.update(self.extra)
        return problem


class BadRequest(VnfmError):
    status = 400
    title = 'Bad Request'


class Unauthorized(VnfmError):
    status = 401
    title = 'Unauthorized'


class Forbidden(VnfmError):
    status = 403
    title = 'Forbidden'


class NotFound(VnfmError):
    status = 404
    title = 'Not Found'


class MethodNotAllowed(VnfmError):
    status = 405
    title = 'Method Not Allowed'


class NotAcceptable(VnfmError):
    status = 406
    title = 'Not Acceptable'


class Conflict(VnfmError):
    """The resource is not in a state that allows the request."""

    status = 409
    title = 'Conflict'


class PreconditionFailed(VnfmError):
    """An If-Match precondition does not hold: the resource changed."""

    status = 412
    title = 'Precondition Failed'


class PayloadTooLarge(VnfmError):
    status = 413
    title = 'Payload Too Large'


class UnsupportedMediaType(VnfmError):
    status = 415
    title = 'Unsupported Media Type'


class UnprocessableEntity(VnfmError):
    status = 422
    title = 'Unprocessable Entity'


class ServiceUnavailable(VnfmError):
    status = 503
    title = 'Service Unavailable'


class OperationFailed(VnfmError):
    """An LCM step failed; the op occurrence records the detail."""

    status = 500
    title = 'Operation Failed'


class DeadlineExceeded(OperationFailed):
    """An external call or hook ran past its deadline."""

    title = 'Deadline Exceeded'


# -- Named conditions --------------------------------------------------------
# Raised where the condition is found, so callers and tests branch on the
# class, never on the detail's text; the response is their status's.


class OpInProgress(Conflict):
    """The VNF instance has an unfinished LCM operation (one at a time)."""


class InstanceStateConflict(Conflict):
    """The VNF instance's instantiationState does not allow the request."""


class OpStateConflict(Conflict):
    """The op occurrence's state does not allow the request."""


class ConcurrentUpdate(Conflict):
    """A compare-and-set lost a race: the resource changed meanwhile."""


class AlreadyExists(Conflict):
    """A resource with that unique name (or vnfdId) exists already."""


class OperationNotSupported(Conflict):
    """No enabled infra driver runs the operation on the instance's VIM."""


class PackageStateConflict(Conflict):
    """The package's onboarding or operational state does not allow the
    request."""


class PackageInUse(Conflict):
    """VNF instances use the package."""


class VimInUse(Conflict):
    """VNF instances use the VIM."""


class FlavourNotInVnfd(UnprocessableEntity):
    """The flavour (or its instantiation level) is not in the VNFD."""


class VimTypeNotServed(UnprocessableEntity):
    """No enabled infra driver serves the vimType."""


class PackageNotOnboarded(UnprocessableEntity):
    """No ONBOARDED package has the vnfdId (or the package is not)."""


class PackageDisabled(UnprocessableEntity):
    """The package is DISABLED: no new instance or operation may use it."""
