"""The committed samples of etc/vnfm/ are what the oslo generators make of
vnfm's options (vnfm.conf.opts) and policy rules (vnfm.server.policies)
today, so an option or rule changed without its sample fails here."""

from __future__ import annotations

import subprocess  # nosec B404
import sys
from pathlib import Path

import pytest

ROOT = Path(__file__).resolve().parents[3]


@pytest.mark.parametrize(
    ('generator', 'config', 'sample', 'tox_env'),
    [
        (
            'oslo-config-generator',
            'etc/oslo-config-generator/vnfm.conf',
            'etc/vnfm/vnfm.conf.sample',
            'genconfig',
        ),
        (
            'oslopolicy-sample-generator',
            'etc/oslo-policy-generator/vnfm.conf',
            'etc/vnfm/policy.yaml.sample',
            'genpolicy',
        ),
    ],
)
def test_the_sample_is_what_the_generator_makes(
    generator: str, config: str, sample: str, tox_env: str, tmp_path: Path
):
    # A subprocess: the generators register options and rules in global
    # state.
    out = tmp_path / 'sample'
    subprocess.run(  # nosec B603
        [
            str(Path(sys.executable).parent / generator),
            '--config-file',
            config,
            '--output-file',
            str(out),
        ],
        cwd=ROOT,
        capture_output=True,
        check=True,
        timeout=120,
    )
    assert out.read_text() == (ROOT / sample).read_text(), (
        f'{sample} is stale: regenerate it with `tox -e {tox_env}` and '
        'commit it.'
    )
