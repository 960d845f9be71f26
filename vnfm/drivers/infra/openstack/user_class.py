"""A package's own user-data class, run in vnfm's sandbox
(``vnfm.drivers.sandbox``: allow-listed by SHA-256, ``python -I``, JSON in
and out, a deadline, capped and scrubbed stderr).

The class's static method for the operation gets Tacker's arguments
``(req, inst, grant_req, grant, csar_dir)`` and returns a dict with any of
``template`` (the top HOT, a dict or YAML text), ``nested_templates``
(name -> template) and ``parameters``. What it leaves out comes from vnfm's
built-in computation, as Tacker's driver leaves it to the stack: the base
HOT, its nested templates (the class's replace those of the same name),
and the parameters (on a running stack, those it returns replace the
stack's of the same name; the others are kept).
"""

from __future__ import annotations

import dataclasses
import os
import posixpath
from collections.abc import Callable
from typing import Any

import yaml

from vnfm.common import exceptions
from vnfm.common import scrub
from vnfm.conf import CONF
from vnfm.drivers import sandbox
from vnfm.drivers.infra import base
from vnfm.drivers.infra.openstack import hot
from vnfm.drivers.infra.openstack import scriptlib
from vnfm.drivers.infra.openstack.stackinput import StackInput
from vnfm.drivers.package_files import PackageFiles

RUNNER = os.path.join(os.path.dirname(scriptlib.__file__), 'run_userdata.py')
_KEYS = ('template', 'nested_templates', 'parameters')


@dataclasses.dataclass
class _Computed:
    """vnfm's own parts, computed before the class runs (None: the error
    says why not)."""

    base: tuple[str, dict[str, str]] | None = None
    builtin: StackInput | None = None
    error: str | None = None

    def offered(self) -> dict[str, Any]:
        """What vnfm_userdata gives the class: base_hot() and builtin()."""
        failed = {'error': self.error}
        return {
            'base_hot': _parsed(*self.base) if self.base else failed,
            'builtin': {
                **_parsed(self.builtin.template, self.builtin.files),
                'parameters': self.builtin.parameters,
            }
            if self.builtin
            else failed,
        }


def run(
    ctx: base.InfraContext,
    operation: str,
    user_data: tuple[str, str],
    current: dict[str, Any] | None,
    builtin: Callable[[], StackInput],
) -> StackInput:
    """The Heat input the class computes, completed by ``builtin``."""
    path, cls = _path(user_data[0]), user_data[1]
    vnfd, package = _source(ctx, operation)
    where = f'User data {cls} ({path}) {operation}'
    computed = _Computed()
    try:
        computed.base = hot.base_hot(package, ctx.flavour_id or '')
        computed.builtin = builtin()
    except exceptions.OperationFailed as e:
        computed.error = e.detail
    result = sandbox.run(
        where,
        package,
        path,
        lambda package_dir: (
            _document(ctx, operation, (path, cls), package_dir, vnfd, current)
            | computed.offered()
        ),
        min(ctx.remaining(), CONF.mgmt_driver.script_timeout),
        scrub.secret_values(ctx.vim_connection_info, ctx.request),
        op_id=ctx.op_id,
        program=RUNNER,
        instance_id=ctx.vnf_instance.get('id'),
    )
    return _merged(where, result, current, computed)


def _path(path: str) -> str:
    """A package path as Tacker packages write it (``./UserData/x.py``)."""
    norm = posixpath.normpath(path.lstrip('/'))
    if norm.startswith('..'):
        raise exceptions.OperationFailed(
            f'lcm-operation-user-data {path} is outside the package.'
        )
    return norm


def _source(
    ctx: base.InfraContext, operation: str
) -> tuple[dict[str, Any], PackageFiles]:
    """The VNFD and package whose class runs: the target's for
    change_vnfpkg, the instance's otherwise."""
    if operation == 'change_vnfpkg':
        if ctx.target_vnfd is None or ctx.target_package is None:
            raise exceptions.OperationFailed(
                'change_vnfpkg needs the target package and its VNFD.'
            )
        return ctx.target_vnfd, ctx.target_package
    return ctx.vnfd, ctx.package


def _parsed(template: str, files: dict[str, str]) -> dict[str, Any]:
    return {
        'template': hot.load(template, 'top template'),
        'nested_templates': {n: hot.load(t, n) for n, t in files.items()},
    }


def _document(
    ctx: base.InfraContext,
    operation: str,
    user_data: tuple[str, str],
    package_dir: str,
    vnfd: dict[str, Any],
    current: dict[str, Any] | None,
) -> dict[str, Any]:
    """The runner's stdin: what to call, its arguments, vnfm_userdata's
    data."""
    inst = ctx.vnf_instance
    return {
        'operation': operation,
        'user_data': os.path.join(package_dir, user_data[0]),
        'user_data_path': user_data[0],
        'class': user_data[1],
        'args': {
            'req': ctx.request,
            'inst': inst,
            'grant_req': {
                'vnfInstanceId': inst.get('id'),
                'vnfdId': vnfd.get('vnfd_id'),
                'flavourId': ctx.flavour_id,
                'operation': ctx.operation,
            },
            'grant': {'vnfInstanceId': inst.get('id')},
            'csar_dir': package_dir,
        },
        'vnfd': vnfd,
        'flavour_id': ctx.flavour_id,
        'current': current or {},
    }


def _merged(
    where: str,
    result: dict[str, Any],
    current: dict[str, Any] | None,
    computed: _Computed,
) -> StackInput:
    """The class's parts over vnfm's."""
    unknown = sorted(set(result) - set(_KEYS))
    if unknown:
        raise exceptions.OperationFailed(
            f'{where} returned {", ".join(unknown)}: only '
            f'{", ".join(_KEYS)} are read.'
        )
    for name in ('nested_templates', 'parameters'):
        if result.get(name) is not None and not isinstance(result[name], dict):
            raise exceptions.OperationFailed(
                f'{where} returned {name} that are not a mapping.'
            )
    nested = result.get('nested_templates') or {}
    parameters = result.get('parameters')
    if 'template' in result:
        template = _yaml(where, 'template', result['template'])
    else:
        template = _needed(where, 'template', computed.base, computed)[0]
    files = dict(computed.base[1]) if computed.base else {}
    files.update({n: _yaml(where, n, t) for n, t in nested.items()})
    if parameters is not None:
        parameters = {**(current or {}), **parameters}
    else:
        parameters = _needed(
            where, 'parameters', computed.builtin, computed
        ).parameters
    return StackInput(template=template, files=files, parameters=parameters)


def _needed(where: str, what: str, value: Any, computed: _Computed) -> Any:
    """A part vnfm must give because the class did not."""
    if value is None:
        raise exceptions.OperationFailed(
            f'{where} returned no {what}, and vnfm cannot compute it: '
            f'{computed.error}'
        )
    return value


def _yaml(where: str, name: str, template: Any) -> str:
    if isinstance(template, str):
        return template
    if isinstance(template, dict):
        return yaml.safe_dump(template, sort_keys=False)
    raise exceptions.OperationFailed(
        f'{where} returned {name} that is neither a mapping nor YAML text.'
    )
