"""Hook scripts from the package, run in vnfm's sandbox (design.rst §5;
``vnfm.drivers.sandbox`` says how they run and what bounds them).

Protocol: the script gets a JSON document on stdin (hook, operation,
vnf_instance, vnf_lcm_op_occ, request, package_dir, vim_connection_info),
runs with the extracted package as its working directory, and writes a JSON
object to stdout (``{"changes": {...}}``, optional). stderr is its log. The
values of the credentials the script was given (vimConnectionInfo, the
request) are removed from its stderr in error details and the log.

Only scripts whose SHA-256 is in ``[mgmt_driver] allowed_script_sha256`` run
(unless ``allow_any_script``).
"""

from __future__ import annotations

from typing import Any

from vnfm.common import exceptions
from vnfm.common import scrub
from vnfm.conf import CONF
from vnfm.drivers import sandbox
from vnfm.drivers.mgmt import base


class ScriptMgmtDriver(base.MgmtDriver):
    """Runs the hook's script from the package."""

    name = 'script'

    def run_hook(self, ctx: base.HookContext) -> base.HookResult:
        """Run the script named by the hook definition."""
        path = ctx.definition.get('file')
        where = f'{ctx.hook} hook {path}'
        if not path:
            raise exceptions.OperationFailed(
                f'{where}: the script is not in package '
                f'{ctx.package.package_id}.'
            )
        out = sandbox.run(
            where,
            ctx.package,
            path,
            lambda package_dir: _document(ctx, package_dir),
            min(ctx.remaining(), CONF.mgmt_driver.script_timeout),
            scrub.secret_values(ctx.vim_connection_info, ctx.request),
            op_id=ctx.vnf_lcm_op_occ.get('id'),
            instance_id=ctx.vnf_instance.get('id'),
        )
        return base.HookResult(
            changes=base.check_changes(where, out.get('changes', {}))
        )

    def rollback_hook(self, ctx: base.HookContext) -> base.HookResult:
        """Scripts have no rollback entry point: nothing to run."""
        return base.HookResult()


def _document(ctx: base.HookContext, package_dir: str) -> dict[str, Any]:
    return {
        'hook': ctx.hook,
        'operation': ctx.operation,
        'vnf_instance': ctx.vnf_instance,
        'vnf_lcm_op_occ': ctx.vnf_lcm_op_occ,
        'request': ctx.request,
        'package_dir': package_dir,
        'vim_connection_info': ctx.vim_connection_info,
    }
