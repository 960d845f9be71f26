"""Benchmark: the storage server set-up of the kubernetes_cluster driver
(seed 004) in local-cloud VMs, for real; prints JSON.

A stack with the storage VM (a 1 GiB Cinder volume) and a master VM; the
driver's storage steps over SSH: the file system made and mounted by UUID,
nfs-ganesha configured and started, the NFS client checked on the master.
Figures: the set-up's time (what it adds to instantiate_end), the steps'
changes on the first run, the commands that changed state on a second
run (target: 0), and the set-up after a heal of the storage VM (Heat
replaces it; the same volume, no new file system). Needs root and the
local OpenStack (tools/build-openstack.sh), as the tests do.

    .venv/bin/python bench/storage_server.py
"""

from __future__ import annotations

import os
import pathlib
import sys
import tempfile
import time
import uuid
from typing import Any

sys.path.insert(0, str(pathlib.Path(__file__).resolve().parents[1]))

from _harness import emit  # noqa: E402
from heatclient import client as heat_client  # noqa: E402

from vnfm_testbed.openstack import storagevm  # noqa: E402
from vnfm_testbed.openstack.cloud import LocalCloud  # noqa: E402


def _settled(heat: Any, stack_id: str, verb: str, seconds: float) -> Any:
    deadline = time.monotonic() + seconds
    while time.monotonic() < deadline:
        stack = heat.stacks.get(stack_id)
        status = stack.stack_status
        if status.startswith(verb) and not status.endswith('IN_PROGRESS'):
            if status != f'{verb}_COMPLETE':
                raise SystemExit(f'{verb}: {stack.stack_status_reason}')
            return stack
        time.sleep(0.2)
    raise SystemExit(f'{verb} of {stack_id} took over {seconds}s')


def _heal(heat: Any, stack_id: str) -> float:
    """Replace the storage VM as a heal does; seconds Heat took."""
    start = time.monotonic()
    heat.resources.mark_unhealthy(stack_id, 'storage_server', True, 'bench')
    heat.stacks.update(stack_id, existing=True)
    _settled(heat, stack_id, 'UPDATE', 300)
    return time.monotonic() - start


def _address(cloud: LocalCloud, last: int) -> str:
    subnet = cloud.catalogue()['networks'][storagevm.NET]['subnets'][0]
    return str(subnet['cidr'].rsplit('.', 1)[0] + f'.{last}')


def main() -> None:
    with tempfile.TemporaryDirectory(prefix='bench-storage-') as tmp:
        cloud = LocalCloud(
            pathlib.Path(tmp) / 'cloud',
            name=f'b{uuid.uuid4().hex[:8]}',
            die_with_parent=True,
        )
        cloud.start(timeout=300)
        try:
            emit(_measure(cloud))
        finally:
            cloud.stop()


def _measure(cloud: LocalCloud) -> dict[str, Any]:
    heat = heat_client.Client('1', session=cloud.session('demo'))
    storage_ip, master_ip = _address(cloud, 81), _address(cloud, 82)
    created = heat.stacks.create(
        stack_name='bench-storage',
        template=storagevm.template(storage_ip, master_ip),
    )
    stack_id = created['stack']['id']
    _settled(heat, stack_id, 'CREATE', 300)
    subnet = cloud.catalogue()['networks'][storagevm.NET]['subnets'][0]
    params = storagevm.cluster_params(subnet['cidr'])
    metadata: dict[str, Any] = {}
    info = storagevm.instance_info(heat, stack_id)
    first = storagevm.set_up(info, params, metadata)
    second = storagevm.set_up(info, params, metadata)
    heal_heat = _heal(heat, stack_id)
    metadata.clear()
    healed = storagevm.set_up(
        storagevm.instance_info(heat, stack_id), params, metadata
    )
    made = [c.what for c in healed.setup.changes.made]
    heat.stacks.delete(stack_id)
    _settled(heat, stack_id, 'DELETE', 300)
    return {
        'nfs_server': 'ganesha',
        'setup_seconds': round(first.seconds, 2),
        'setup_changed': len(first.setup.changes),
        'setup_changes': [
            f'{c.step}: {c.what}' for c in first.setup.changes.made
        ],
        'second_run_seconds': round(second.seconds, 2),
        'second_run_changed': len(second.setup.changes),
        'heal_heat_replace_seconds': round(heal_heat, 2),
        'heal_setup_seconds': round(healed.seconds, 2),
        'heal_setup_changed': len(healed.setup.changes),
        'heal_setup_changes': [
            f'{c.step}: {c.what}' for c in healed.setup.changes.made
        ],
        'heal_made_a_file_system': any(w.startswith('mkfs') for w in made),
    }


if __name__ == '__main__':
    if os.geteuid() != 0:
        raise SystemExit('needs root (the local cloud makes namespaces)')
    main()
