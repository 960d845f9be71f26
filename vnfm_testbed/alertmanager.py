"""Debian's Alertmanager (``prometheus-alertmanager``) on loopback for
tests and benchmarks, posting to a webhook receiver with a bearer token.

Alertmanager takes alerts on its API (``post_alerts``) and posts them, a
group at a time, to the webhook, as it does for Prometheus.
"""

from __future__ import annotations

import contextlib
import json
import shutil
from collections.abc import Iterator
from pathlib import Path

import requests

from vnfm_testbed import procs

BINARY = 'prometheus-alertmanager'


def available() -> bool:
    """Whether the Alertmanager binary is installed."""
    return shutil.which(BINARY) is not None


def config(webhook_url: str, token: str) -> dict:
    """A configuration routing every alert to ``webhook_url`` at once
    (group_wait 0), resolved alerts too, authenticated by ``token``."""
    return {
        'route': {
            'receiver': 'vnfm',
            'group_by': ['alertname', 'vnf_instance_id'],
            'group_wait': '0s',
            'group_interval': '1s',
            'repeat_interval': '1h',
        },
        'receivers': [
            {
                'name': 'vnfm',
                'webhook_configs': [
                    {
                        'url': webhook_url,
                        'send_resolved': True,
                        'http_config': {
                            'authorization': {
                                'type': 'Bearer',
                                'credentials': token,
                            }
                        },
                    }
                ],
            }
        ],
    }


@contextlib.contextmanager
def running(
    directory: Path, webhook_url: str, token: str, timeout: float = 30.0
) -> Iterator[str]:
    """Run Alertmanager (data and log in ``directory``) posting to
    ``webhook_url``; yield its base URL."""
    directory.mkdir(parents=True, exist_ok=True)
    conf = directory / 'alertmanager.yml'
    conf.write_text(json.dumps(config(webhook_url, token)))  # YAML ⊃ JSON
    port = procs.free_port()
    url = f'http://127.0.0.1:{port}'
    pid = procs.spawn(
        [
            shutil.which(BINARY) or BINARY,
            f'--config.file={conf}',
            f'--storage.path={directory / "data"}',
            f'--web.listen-address=127.0.0.1:{port}',
            '--cluster.listen-address=',
        ],
        directory / 'alertmanager.log',
        die_with_parent=True,
    )
    try:
        if not procs.wait_for(lambda: _ready(url), timeout):
            raise RuntimeError(
                f'Alertmanager did not start in {timeout}s: '
                + procs.tail(directory / 'alertmanager.log')
            )
        yield url
    finally:
        procs.stop(pid)


def _ready(url: str) -> bool:
    try:
        return requests.get(f'{url}/-/ready', timeout=2).status_code == 200
    except requests.RequestException:
        return False


def post_alerts(url: str, alerts: list[dict]) -> None:
    """Give Alertmanager alerts as Prometheus does (API v2)."""
    r = requests.post(f'{url}/api/v2/alerts', json=alerts, timeout=10)
    r.raise_for_status()
