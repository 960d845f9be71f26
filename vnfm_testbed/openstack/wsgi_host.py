"""Serve Keystone's or Heat's WSGI application on loopback with cheroot.

Run by the Python of the cached OpenStack virtualenv (built by
tools/build-openstack.sh), not by vnfm's: it imports nothing of vnfm::

    python wsgi_host.py keystone PORT CONFIG_FILE
    python wsgi_host.py heat PORT CONFIG_FILE
    python wsgi_host.py glance PORT CONFIG_FILE   (heat.conf: its
        [keystone_authtoken]; images in $VNFM_LOCALCLOUD_STATE)

Production deployments put these applications under uWSGI or mod_wsgi; any
WSGI server runs them the same way.
"""

from __future__ import annotations

import os
import signal
import sys
import threading
from typing import Any


def _keystone(config_file: str) -> Any:
    os.environ['OS_KEYSTONE_CONFIG_FILES'] = config_file
    os.environ.setdefault(
        'OS_KEYSTONE_CONFIG_DIR', os.path.dirname(config_file)
    )
    sys.argv = ['keystone']  # keystone parses the command line too
    from keystone.server import wsgi

    return wsgi.initialize_public_application()


def _heat(config_file: str) -> Any:
    # heat's init_application parses sys.argv like its former console script.
    sys.argv = ['heat-api', '--config-file', config_file]
    from heat.api.openstack import wsgi

    return wsgi.init_application()


def _glance(config_file: str) -> Any:
    # The image service of glance.py behind keystonemiddleware, which reads
    # its [keystone_authtoken] from heat.conf (the same service user).
    import importlib.util
    from pathlib import Path

    from keystonemiddleware import auth_token

    path = Path(__file__).with_name('glance.py')
    spec = importlib.util.spec_from_file_location('localcloud_glance', path)
    assert spec and spec.loader
    glance = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(glance)
    app = glance.App(Path(os.environ['VNFM_LOCALCLOUD_STATE']))
    return auth_token.AuthProtocol(
        app,
        {'oslo_config_project': 'heat', 'oslo_config_file': config_file},
    )


def main(argv: list[str]) -> int:
    """Load the application named by ``argv[0]`` and serve it until SIGTERM."""
    name, port, config_file = argv
    apps = {'keystone': _keystone, 'heat': _heat, 'glance': _glance}
    app = apps[name](config_file)
    from cheroot import wsgi as server

    httpd = server.Server(('127.0.0.1', int(port)), app, numthreads=8)

    def _stop(*_: object) -> None:
        # Not in the handler itself: it runs on the thread serving in
        # httpd.start(), and stop() waits for that loop to end.
        threading.Thread(target=httpd.stop, daemon=True).start()

    signal.signal(signal.SIGTERM, _stop)
    try:
        httpd.start()
    except KeyboardInterrupt:
        httpd.stop()
    return 0


if __name__ == '__main__':
    sys.exit(main(sys.argv[1:]))
