"""Contexts for the Heat-input tests, from the built VM sample packages."""

from __future__ import annotations

import functools
import io
import time
import zipfile
from typing import Any

from vnfm.csar import CsarLimits
from vnfm.csar import read_csar
from vnfm.csar.build import build_csar
from vnfm.drivers.infra import base
from vnfm.drivers.package_files import PackageFiles

from ....csar.utils import SAMPLES

EXT_NET, DATA_NET = 'mgmt-net', 'data-net-1'


def package(
    name: str = 'vm_simple', **changed: bytes
) -> tuple[dict[str, Any], PackageFiles]:
    """(Vnfd.to_dict(), files) of a sample package, some files replaced."""
    data = build_csar(str(SAMPLES / name))
    with zipfile.ZipFile(io.BytesIO(data)) as zf:
        files = {n: zf.read(n) for n in zf.namelist()}
    files.update(changed)
    buf = io.BytesIO()
    with zipfile.ZipFile(buf, 'w') as zf:
        for n, d in files.items():
            zf.writestr(n, d)
    csar = read_csar(buf.getvalue(), CsarLimits())
    return csar.vnfd.to_dict(), PackageFiles(name, files)


def instantiate_request(**extra: Any) -> dict[str, Any]:
    """A v2 InstantiateVnfRequest for vm_simple."""
    return {
        'flavourId': 'simple',
        'extVirtualLinks': [
            {
                'id': 'ext1',
                'resourceId': EXT_NET,
                'extCps': [
                    {'cpdId': 'VDU1_CP1', 'cpConfig': {'a': {}}},
                    {'cpdId': 'VDU2_CP1', 'cpConfig': {'a': {}}},
                ],
            }
        ],
        'extManagedVirtualLinks': [
            {
                'id': 'int1',
                'vnfVirtualLinkDescId': 'internalVL1',
                'resourceId': DATA_NET,
            }
        ],
        **extra,
    }


def context(
    operation: str = 'INSTANTIATE',
    request: dict[str, Any] | None = None,
    vnf_instance: dict[str, Any] | None = None,
    name: str = 'vm_simple',
    target: str | None = None,
    **changed: bytes,
) -> base.InfraContext:
    """An InfraContext of the sample (and a target package for change)."""
    vnfd, files = package(name, **changed)
    ctx = base.InfraContext(
        operation=operation,
        vnf_instance=vnf_instance or {'id': 'inst-1'},
        request=instantiate_request() if request is None else request,
        vnfd=vnfd,
        flavour_id='simple',
        vim_connection_info={},
        package=files,
        deadline=time.monotonic() + 60,
    )
    if target:
        ctx.target_vnfd, ctx.target_package = package(target)
    return ctx


@functools.cache
def sample_flavour(name: str = 'vm_simple', flavour_id: str = 'simple'):
    """A flavour of a sample package, as the drivers get it (read once)."""
    return read_csar(build_csar(str(SAMPLES / name))).vnfd.flavours[flavour_id]
