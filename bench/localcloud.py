"""Benchmark: the local OpenStack (vnfm-localcloud).

* ``up`` twice in a row (the first after the build, the second with the
  page cache warm): seconds until a user's request reaches heat-engine;
* resident memory of the whole cloud (Keystone, heat-api, heat-engine and
  its workers), idle and with the stack below;
* a stack of 3 servers (VMs with sshd) created by a non-admin user: seconds
  to CREATE_COMPLETE, and to DELETE_COMPLETE.

Targets (issue 9): warm up <= 20 s, 3-server stack <= 10 s, delete <= 5 s,
whole cloud <= 1.5 GB RSS. Needs root (namespaces), RabbitMQ and
PostgreSQL. Prints one JSON object.
"""

from __future__ import annotations

import os
import sys
import tempfile
import time
from pathlib import Path

from _harness import emit
from heatclient import client as heat_client  # noqa: E402

from vnfm_testbed.openstack.cloud import LocalCloud  # noqa: E402

TEMPLATE = 'heat_template_version: 2021-04-16\nresources:\n' + ''.join(
    f'  vm{i}:\n    type: OS::Nova::Server\n    properties:\n'
    f'      image: cirros-0.6\n      flavor: m1.tiny\n'
    f'      networks: [{{network: mgmt-net}}]\n'
    for i in range(3)
)


def _group_rss_mib(pids: list[int]) -> float:
    """RSS of every process in the process groups led by ``pids``."""
    total = 0
    for proc in Path('/proc').iterdir():
        if not proc.name.isdigit():
            continue
        try:
            if os.getpgid(int(proc.name)) not in pids:
                continue
            for line in (proc / 'status').read_text().splitlines():
                if line.startswith('VmRSS:'):
                    total += int(line.split()[1])
        except (OSError, ProcessLookupError):
            continue
    return round(total / 1024, 1)


def _until(heat: heat_client.Client, stack_id: str, verb: str) -> str:
    deadline = time.monotonic() + 300
    while time.monotonic() < deadline:
        status = heat.stacks.get(stack_id).stack_status
        if status.startswith(verb) and not status.endswith('IN_PROGRESS'):
            return status
        time.sleep(0.05)
    raise TimeoutError(f'{verb} of {stack_id}')


def main() -> None:
    """Start the cloud twice, run the stack, print the figures."""
    figures: dict = {'cpus': os.cpu_count()}
    with tempfile.TemporaryDirectory() as tmp:
        for label in ('up_first_s', 'up_again_s'):
            cloud = LocalCloud(Path(tmp) / label, name=f'bench{os.getpid()}')
            cloud.start(timeout=600)
            figures[label] = round(cloud.startup_seconds, 1)
            if label == 'up_again_s':
                break
            cloud.stop()
        try:
            pids = list(cloud.pids.values())
            figures['rss_idle_mib'] = _group_rss_mib(pids)
            heat = heat_client.Client('1', session=cloud.session('demo'))
            begin = time.monotonic()
            sid = heat.stacks.create(stack_name='b3', template=TEMPLATE)
            sid = sid['stack']['id']
            figures['stack3_status'] = _until(heat, sid, 'CREATE')
            figures['stack3_create_s'] = round(time.monotonic() - begin, 2)
            figures['rss_with_stack_mib'] = _group_rss_mib(pids)
            begin = time.monotonic()
            heat.stacks.delete(sid)
            figures['stack3_delete_status'] = _until(heat, sid, 'DELETE')
            figures['stack3_delete_s'] = round(time.monotonic() - begin, 2)
        finally:
            cloud.stop()
    emit(figures)


if __name__ == '__main__':
    sys.exit(main())
