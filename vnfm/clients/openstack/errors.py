"""Errors of the OpenStack clients, with details a user can act on."""

from __future__ import annotations

from keystoneauth1 import exceptions as ks_exc

from vnfm.clients import deadlines
from vnfm.clients import outbound
from vnfm.common import exceptions

#: What any request on a VIM's Keystone session may raise besides the
#: service's own errors: ``transport(what, e)`` words it.
TRANSPORT = (ks_exc.ClientException, outbound.Refused, deadlines.CallTimedOut)


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


def transport(what: str, e: BaseException) -> OpenStackError:
    """The OpenStackError of a TRANSPORT failure while trying to ``what``."""
    if isinstance(e, ks_exc.Unauthorized):
        return OpenStackError(
            f'Keystone refused the VIM credentials (to {what}): the '
            'username, password or project changed since the VIM was '
            'registered; update the VIM (openstack vim set) and retry.'
        )
    if isinstance(e, outbound.Refused):
        return OpenStackError(f'Could not {what}: {outbound.refused_vim(e)}.')
    if isinstance(e, deadlines.CallTimedOut):
        return OpenStackError(f'Could not {what}: {e.detail}')
    return OpenStackError(f'Could not {what}: {e}')
