"""vnfm-api's imports: a lean supervisor, workers without eventlet or the
conductor's clients."""

import json
import logging
import subprocess
import sys

from cryptography import fernet

from tests.unit.lcm.fixtures import conf  # noqa: F401 (a fixture)
from tests.unit.lcm.fixtures import db_url  # noqa: F401 (a fixture)
from vnfm.cmd import api
from vnfm.common import schemacheck
from vnfm.db import session
from vnfm.server import policies
from vnfm.server import router

# Top-level packages the API never uses: eventlet (vnfm runs threads) and
# what only drivers in the conductor use.
NOT_IN_THE_API = (
    'eventlet',
    'greenlet',
    'kubernetes',
    'heatclient',
    'paramiko',
    'keystoneauth1',
)


def python(code: str, env: dict | None = None) -> str:
    """What ``code`` prints in a new interpreter."""
    return subprocess.run(
        [sys.executable, '-c', code],
        capture_output=True,
        text=True,
        timeout=120,
        check=True,
        env=env,
    ).stdout


def loaded_after(code: str) -> set[str]:
    """Top-level packages in sys.modules after running ``code`` in a new
    interpreter."""
    out = python(
        code + '\nimport json, sys\n'
        'print(json.dumps(sorted({n.split(".")[0] for n, m in '
        'sys.modules.items() if m is not None})))'
    )
    return set(json.loads(out.splitlines()[-1]))


def test_the_supervisor_does_not_load_the_application():
    loaded = loaded_after('import vnfm.cmd.api')
    for package in (
        'sqlalchemy',
        'oslo_messaging',
        'webob',
        'cheroot',
        'jsonschema',
        *NOT_IN_THE_API,
    ):
        assert package not in loaded, package


def test_a_worker_loads_no_eventlet_and_no_driver_client(tmp_path):
    loaded = loaded_after(
        'from vnfm.cmd import api\n'
        'from vnfm.conf import CONF\n'
        f'CONF(["--config-file", {str(_conf(tmp_path))!r}], project="vnfm")\n'
        'server = api.make_server()\n'
        # What requests load on first use: the RPC client and transport.
        'from vnfm.common import rpc\n'
        'from vnfm.conductor import rpcapi\n'
        'rpcapi.ConductorAPI()\n'
        'rpc.get_transport()\n'
    )
    assert 'oslo_messaging' in loaded and 'sqlalchemy' in loaded
    for package in NOT_IN_THE_API:
        assert package not in loaded, package


def test_the_wsgi_entry_point_loads_no_eventlet():
    loaded = loaded_after('import vnfm.server.wsgi')
    assert 'oslo_messaging' in loaded
    assert 'eventlet' not in loaded


def test_the_wsgi_application_freezes_what_start_up_made(tmp_path):
    config = tmp_path / 'vnfm.conf'
    config.write_text(
        f'[DEFAULT]\nstate_path = {tmp_path}\ntransport_url = fake://\n'
        f'[crypto]\nkeys = {fernet.Fernet.generate_key().decode()}\n'
    )
    out = python(
        'import gc\n'
        'from vnfm.server import wsgi\n'
        'wsgi.init_application()\n'
        'print(gc.get_freeze_count())\n',
        env={'VNFM_CONFIG_FILE': str(config), 'PATH': '/usr/bin:/bin'},
    )
    assert int(out.split()[-1]) > 10_000


def _conf(tmp_path):
    path = tmp_path / 'vnfm.conf'
    path.write_text(
        f'[DEFAULT]\nstate_path = {tmp_path}\ntransport_url = fake://\n'
        '[api]\nport = 0\nhost_ip = 127.0.0.1\n'
    )
    return path


def test_warm_up_does_what_first_requests_would(db_url):  # noqa: F811
    policies.reset()
    schemacheck._compiled.clear()
    api.warm_up()
    assert policies._enforcer is not None
    for _path, methods in router.TABLE:
        for action in methods.values():
            if action.schema is not None:
                assert id(action.schema) in schemacheck._compiled
    assert session.get_engine().pool.checkedin() == 1


def test_warm_up_without_a_database_only_warns(conf, tmp_path, caplog):  # noqa: F811
    # A directory is no SQLite database: connecting fails.
    conf('connection', f'sqlite:///{tmp_path}', 'database')
    session.set_engine(None)
    try:
        with caplog.at_level(logging.WARNING):
            api.warm_up()
    finally:
        session.set_engine(None)
    assert 'vnfm-api could not reach the database yet' in caplog.text
