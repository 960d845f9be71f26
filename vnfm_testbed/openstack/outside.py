"""What happens to a local cloud's resources behind Heat's back, for tests
of vnfm noticing it: a server deleted as ``openstack server delete`` (Nova)
would, while its stack still names it."""

from __future__ import annotations

import json
from pathlib import Path

from vnfm_testbed.openstack import stores
from vnfm_testbed.openstack import vmhost


def _save(state_dir: Path, kind: str, item: dict) -> None:
    path = state_dir / kind / f'{item["id"]}.json'
    tmp = path.with_suffix('.tmp')
    tmp.write_text(json.dumps(item))
    tmp.replace(path)


def delete_server(state_dir: Path, server_id: str) -> None:
    """Delete server ``server_id`` as Nova does: its VM stops and goes,
    its ports are unbound, its volumes detached (``available``). Heat's
    resource keeps the id; KeyError if there is no such server."""
    vm_dir = state_dir / 'vms' / server_id
    if not (vm_dir / 'spec.json').exists():
        raise KeyError(f'no server {server_id}')
    vmhost.stop(vm_dir)
    for port in stores.records(state_dir, 'ports'):
        if port.get('device_id') == server_id:
            port['device_id'] = port['device_owner'] = ''
            _save(state_dir, 'ports', port)
    for vol in stores.records(state_dir, 'volumes'):
        kept = [a for a in vol['attachments'] if a['server_id'] != server_id]
        if kept != vol['attachments']:
            vol['attachments'] = kept
            vol['status'] = 'in-use' if kept else 'available'
            _save(state_dir, 'volumes', vol)
