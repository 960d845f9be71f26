"""Prometheus as vnfm drives it: promtool's verdict on a rule file and
the lifecycle reload, each within its deadline."""

from __future__ import annotations

import http.server
import threading
from collections.abc import Iterator

import pytest

from vnfm.clients import prometheus


class _Reload(http.server.BaseHTTPRequestHandler):
    status = 200
    posts: list = []

    def do_POST(self):  # noqa: N802 (http.server API)
        self.posts.append(self.path)
        self.send_response(self.status)
        body = b'Lifecycle API is not enabled.' if self.status != 200 else b''
        self.send_header('Content-Length', str(len(body)))
        self.end_headers()
        self.wfile.write(body)

    def log_message(self, *args):
        pass


@pytest.fixture
def fake_prometheus() -> Iterator[str]:
    server = http.server.ThreadingHTTPServer(('127.0.0.1', 0), _Reload)
    _Reload.status, _Reload.posts = 200, []
    thread = threading.Thread(
        target=server.serve_forever, args=(0.05,), daemon=True
    )
    thread.start()
    yield f'http://127.0.0.1:{server.server_address[1]}/'
    server.shutdown()
    server.server_close()


def test_reload_posts_to_the_lifecycle_api(fake_prometheus):
    prometheus.reload(fake_prometheus, 5.0)

    assert _Reload.posts == ['/-/reload']


def test_a_refused_reload_says_how_to_enable_it(fake_prometheus):
    _Reload.status = 403

    with pytest.raises(prometheus.PrometheusError) as e:
        prometheus.reload(fake_prometheus, 5.0)

    assert '403' in str(e.value)
    assert '--web.enable-lifecycle' in str(e.value)


def test_no_prometheus_is_an_error_not_a_hang():
    with pytest.raises(prometheus.PrometheusError):
        prometheus.reload('http://127.0.0.1:9', 1.0)


def _tool(tmp_path, script: str) -> str:
    path = tmp_path / 'promtool'
    path.write_text('#!/bin/sh\n' + script)
    path.chmod(0o755)
    return str(path)


def test_a_rule_file_promtool_refuses_is_an_error(tmp_path):
    tool = _tool(tmp_path, 'echo "bad expr" >&2; exit 1\n')

    with pytest.raises(prometheus.PrometheusError) as e:
        prometheus.check_rules(tool, str(tmp_path / 'r.yaml'), 5.0)

    assert 'bad expr' in str(e.value)


def test_a_slow_promtool_is_stopped_at_the_deadline(tmp_path):
    tool = _tool(tmp_path, 'exec sleep 30\n')

    with pytest.raises(prometheus.PrometheusError) as e:
        prometheus.check_rules(tool, str(tmp_path / 'r.yaml'), 0.2)

    assert 'within 0.2 s' in str(e.value)


def test_promtool_is_found_on_the_path_or_not(tmp_path):
    assert prometheus.promtool(str(tmp_path / 'none')) is None
    assert prometheus.promtool(_tool(tmp_path, 'exit 0\n')) is not None
