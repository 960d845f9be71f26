"""Prometheus, as vnfm drives it: rule files checked with ``promtool``
and a reload through the lifecycle API (``POST /-/reload``; Prometheus
runs with ``--web.enable-lifecycle``). Each call has a total deadline.

The Prometheus URL and the promtool path are the operator's
configuration, not an API user's: the outbound policy does not apply.
"""

from __future__ import annotations

import shutil
import subprocess  # nosec B404 - promtool, an argument list, no shell

import requests


class PrometheusError(Exception):
    """Prometheus or promtool refused, failed or did not answer in time."""


def promtool(path: str) -> str | None:
    """The promtool to run (``path`` found on PATH), None if absent."""
    return shutil.which(path)


def check_rules(tool: str, rule_file: str, timeout: float) -> None:
    """Have promtool check a rule file; PrometheusError with its
    complaint if the file is not valid."""
    try:
        done = subprocess.run(  # noqa: S603  # nosec B603 - fixed argv
            [tool, 'check', 'rules', rule_file],
            capture_output=True,
            text=True,
            timeout=timeout,
            check=False,
        )
    except subprocess.TimeoutExpired:
        raise PrometheusError(
            f'promtool did not check {rule_file} within {timeout} s'
        ) from None
    if done.returncode != 0:
        complaint = (done.stderr or done.stdout).strip()[-2000:]
        raise PrometheusError(f'promtool refused {rule_file}: {complaint}')


def reload(url: str, timeout: float) -> None:
    """Have Prometheus at ``url`` reload its configuration and rules."""
    target = url.rstrip('/') + '/-/reload'
    try:
        resp = requests.post(target, timeout=(timeout, timeout))
    except requests.RequestException as e:
        raise PrometheusError(
            f'Prometheus did not reload ({target}): {type(e).__name__}'
        ) from None
    if resp.status_code != 200:
        raise PrometheusError(
            f'Prometheus answered {resp.status_code} to {target}: '
            f'{resp.text[:300]} (is it run with --web.enable-lifecycle?)'
        )
