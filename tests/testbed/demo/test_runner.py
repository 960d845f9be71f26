"""vnfm-demo's runner: the pieces that need no running service."""

import http.server
import json
import threading

import pytest

from vnfm_testbed.demo import runner as demo_runner

_TABLE = """\
+---------------------+--------------------------------------+
| Field               | Value                                |
+---------------------+--------------------------------------+
| ID                  | 6265614b-5a4f-42d1-a676-7870fbc43af8 |
| Instantiation State | NOT_INSTANTIATED                     |
| Links               | {                                    |
|                     |     "self": "x"                      |
|                     | }                                    |
+---------------------+--------------------------------------+
"""


def test_table_field_reads_a_row_of_an_openstack_show_table():
    assert (
        demo_runner.table_field(_TABLE, 'ID')
        == '6265614b-5a4f-42d1-a676-7870fbc43af8'
    )
    assert (
        demo_runner.table_field(_TABLE, 'Instantiation State')
        == 'NOT_INSTANTIATED'
    )
    assert demo_runner.table_field(_TABLE, 'VNFD ID') == ''


def test_config_allows_only_the_sample_script(tmp_path):
    server = demo_runner.VnfmAll(tmp_path, 12345, ['ab' * 32])

    text = server.config.read_text()

    assert f'allowed_script_sha256 = {"ab" * 32}' in text
    assert 'allow_any_script' not in text
    assert 'port = 12345' in text and 'transport_url = fake://' in text


class _Handler(http.server.BaseHTTPRequestHandler):
    seen: list = []

    def do_POST(self):  # noqa: N802 - http.server's name
        body = self.rfile.read(int(self.headers['Content-Length']))
        self.seen.append((self.path, dict(self.headers), json.loads(body)))
        status = 409 if 'operate' in self.path else 202
        answer = b'{"detail": "already STOPPED"}' if status == 409 else b''
        self.send_response(status)
        self.send_header('Content-Length', str(len(answer)))
        self.end_headers()
        self.wfile.write(answer)

    def log_message(self, *args):
        pass


@pytest.fixture
def api(tmp_path):
    httpd = http.server.HTTPServer(('127.0.0.1', 0), _Handler)
    thread = threading.Thread(target=httpd.serve_forever, daemon=True)
    thread.start()
    _Handler.seen = []
    yield demo_runner.VnfmAll(tmp_path, httpd.server_address[1], [])
    httpd.shutdown()
    httpd.server_close()


def test_post_sends_json_and_prints_it_as_curl(api, capsys):
    status, answer = api.post(
        '/vnflcm/v2/vnf_instances/i1/scale_to_level',
        {'instantiationLevelId': 'l1'},
    )

    assert (status, answer) == (202, None)
    path, headers, body = _Handler.seen[0]
    assert path == '/vnflcm/v2/vnf_instances/i1/scale_to_level'
    assert headers['Version'] == '2.0.0'
    assert headers['Content-Type'] == 'application/json'
    assert body == {'instantiationLevelId': 'l1'}
    out = capsys.readouterr().out
    assert (
        "$ curl -X POST -H 'Version: 2.0.0' -H 'Content-Type: "
        'application/json\' -d \'{"instantiationLevelId": "l1"}\' '
        f'{api.endpoint}/vnflcm/v2/vnf_instances/i1/scale_to_level'
    ) in out
    assert 'HTTP 202' in out


def test_post_refused_is_a_failed_step_with_the_detail(api):
    with pytest.raises(
        demo_runner.StepFailed, match='POST .*/operate: 409 .*already STOPPED'
    ):
        api.post(
            '/vnflcm/v2/vnf_instances/i1/operate', {'changeStateTo': 'STOPPED'}
        )
