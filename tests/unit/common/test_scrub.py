"""Secret values found in documents and removed from text."""

import json

from vnfm.common import crypto
from vnfm.common import scrub

PEM = (
    '-----BEGIN PRIVATE KEY-----\n'
    'MIIEvQIBADANBgkqhkiG9w0BAQEFAASCBKcwggSjAgEAAoIBAQC7\n'
    'VJTUt9Us8cKjMzEfYyjiWA4R4/M2bS1GB4t7NXp98C3SC6dVMvDu\n'
    '-----END PRIVATE KEY-----\n'
)


def test_secret_values_of_vim_and_request():
    vim = {
        'vim1': {
            'vimType': 'kubernetes',
            'interfaceInfo': {'endpoint': 'https://198.18.0.1:6443'},
            'accessInfo': {
                'username': 'admin',
                'region': 'r1',
                'bearer_token': 'tok-123',
                'password': 'pw-456',
                'client_key': PEM,
                crypto.SEALED: 'gAAAA-sealed',
            },
        }
    }
    request = {
        'flavourId': 'simple',
        'additionalParams': {
            'db': {'password': 'db-789', 'user': 'app'},
            'paramsBasic': {'userName': 'u', 'password': 'basic-pw'},
        },
        'vimConnectionInfo': {'v': {'accessInfo': {'password': crypto.MASK}}},
    }

    found = scrub.secret_values(vim, request)

    assert found == {'tok-123', 'pw-456', PEM, 'db-789', 'u', 'basic-pw'}


def test_scrub_masks_raw_escaped_and_line_forms():
    secrets = {'tok-123', PEM, 'a"b\\c-quoted'}
    body = PEM.splitlines()[1]
    printed = json.dumps({'k': PEM, 'q': 'a"b\\c-quoted'})
    text = (
        f'token tok-123 and again tok-123\n{PEM}{printed}\nreflowed: {body}\n'
    )

    out = scrub.scrub(text, secrets)

    assert 'tok-123' not in out
    assert body not in out
    assert 'BEGIN PRIVATE KEY-----\\nMII' not in out
    assert 'quoted' not in out
    assert out.startswith('token ******** and again ********\n')


def test_short_secrets_are_masked_as_whole_words_only():
    out = scrub.scrub('pw=ab, about abc, "ab"', {'ab'})
    assert out == 'pw=********, about abc, "********"'


def test_scrub_cut_masks_a_secret_tail_at_the_start():
    secret = 'very-long-secret-value'
    assert scrub.scrub_cut('secret-value and more', {secret}) == (
        '******** and more'
    )
    assert scrub.scrub_cut('et then text', {secret}) == 'et then text'
    assert scrub.scrub_cut('', {secret}) == ''
