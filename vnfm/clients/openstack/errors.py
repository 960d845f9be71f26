"""Errors of the OpenStack clients, with details a user can act on."""

from __future__ import annotations

from vnfm.common import exceptions


class OpenStackError(exceptions.OperationFailed):
    """Keystone or Heat failed a request or a stack failed."""

    title = 'OpenStack Error'


class BadVimConnection(OpenStackError):
    """The vimConnectionInfo cannot describe an OpenStack VIM."""

    title = 'Bad VIM Connection'


class StackFailed(OpenStackError):
    """A stack reached a ``*_FAILED`` state."""

    title = 'Heat Stack Failed'

    def __init__(
        self, detail: str, resource: str | None, reason: str | None
    ) -> None:
        super().__init__(detail)
        self.resource = resource
        self.reason = reason
