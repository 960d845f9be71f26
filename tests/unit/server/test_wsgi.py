"""vnfm-api under a WSGI server: the application is built on the first
request (after the server forked), from the files VNFM_CONFIG_FILE names."""

from __future__ import annotations

from vnfm.server import wsgi


def test_wsgi_application_is_lazy(monkeypatch):
    calls = []

    def fake_init():
        calls.append(1)
        return lambda environ, start_response: [b'ok']

    monkeypatch.setattr(wsgi, 'init_application', fake_init)
    app = wsgi._LazyApplication()
    assert calls == []
    assert app({}, None) == [b'ok'] and app({}, None) == [b'ok']
    assert calls == [1]


def test_config_files_from_environment(monkeypatch):
    monkeypatch.setenv('VNFM_CONFIG_FILE', '/a.conf, /b.conf')
    assert wsgi._config_files() == ['/a.conf', '/b.conf']
    monkeypatch.delenv('VNFM_CONFIG_FILE')
    assert wsgi._config_files() is None
