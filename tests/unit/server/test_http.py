"""The responses of vnfm-api as a client sees them: exact Content-Type,
no body on a 204, ProblemDetails for errors, ranges on downloads."""

from __future__ import annotations

import orjson
import webob

from vnfm.common import exceptions
from vnfm.server import http


def test_json_response_has_an_exact_content_type():
    resp = http.json_response({'a': [1]}, 201, {'Location': '/x/1'})

    assert resp.status_int == 201
    assert resp.headers['Content-Type'] == 'application/json'
    assert resp.headers['Location'] == '/x/1'
    assert orjson.loads(resp.body) == {'a': [1]}


def test_an_empty_response_has_no_content_type():
    resp = http.empty_response(headers={'Location': '/op/1'})

    assert resp.status_int == 204
    assert resp.body == b''
    assert 'Content-Type' not in resp.headers


def test_a_problem_response_is_problem_json_with_its_status():
    resp = http.problem_response(
        exceptions.Conflict('The package is in use.'), {'Version': '2.0.0'}
    )

    assert resp.status_int == 409
    assert resp.headers['Content-Type'] == 'application/problem+json'
    assert resp.headers['Version'] == '2.0.0'
    problem = orjson.loads(resp.body)
    assert problem['status'] == 409
    assert problem['detail'] == 'The package is in use.'


def test_a_download_answers_a_range_with_206():
    resp = http.file_response(b'0123456789', http.ZIP)
    req = webob.Request.blank('/', headers={'Range': 'bytes=2-4'})

    answered = req.get_response(resp)

    assert answered.status_int == 206
    assert answered.body == b'234'
    assert answered.headers['Content-Range'] == 'bytes 2-4/10'
    assert answered.headers['Content-Type'] == 'application/zip'


def test_a_download_without_range_is_whole():
    resp = http.file_response(b'0123456789', http.TEXT)

    answered = webob.Request.blank('/').get_response(resp)

    assert answered.status_int == 200
    assert answered.body == b'0123456789'
    assert answered.headers['Accept-Ranges'] == 'bytes'
    assert answered.headers['Content-Type'] == 'text/plain'
