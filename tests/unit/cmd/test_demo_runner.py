"""vnfm-demo's runner: the pieces that need no running service."""

from vnfm.cmd import demo_runner

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
    assert demo_runner.table_field(_TABLE, 'ID') == \
        '6265614b-5a4f-42d1-a676-7870fbc43af8'
    assert demo_runner.table_field(_TABLE, 'Instantiation State') == \
        'NOT_INSTANTIATED'
    assert demo_runner.table_field(_TABLE, 'VNFD ID') == ''


def test_config_allows_only_the_sample_script(tmp_path):
    server = demo_runner.VnfmAll(tmp_path, 12345, ['ab' * 32])

    text = server.config.read_text()

    assert f'allowed_script_sha256 = {"ab" * 32}' in text
    assert 'allow_any_script' not in text
    assert 'port = 12345' in text and 'transport_url = fake://' in text
