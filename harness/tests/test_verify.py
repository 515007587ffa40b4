"""The conformance checks must fail, with a useful message, against a server that breaks the contract."""

import pytest

from arena import verify
from arena.client import Client, Reply
from arena.process import free_port, running


def reply(status: int, body: bytes, content_type: str = "text/plain") -> Reply:
    return Reply("GET", "/x", status, content_type, body, 0.01)


def test_expect_accepts_a_matching_reply():
    verify.expect(reply(200, b"OK"), 200, b"OK", "text/plain")


@pytest.mark.parametrize(
    ("got", "status", "body", "content_type"),
    [
        (reply(500, b"oops"), 200, b"OK", None),
        (reply(200, b"KO"), 200, b"OK", None),
        (reply(200, b"OK", "text/html"), 200, b"OK", "text/plain"),
        (reply(404, b""), 404, None, None),
    ],
)
def test_expect_reports_request_expected_and_got(got, status, body, content_type):
    with pytest.raises(verify.Mismatch) as err:
        verify.expect(got, status, body, content_type)
    text = str(err.value)
    assert "request:  GET /x" in text and "expected:" in text and "got:" in text


def test_wrong_checksum_fails_the_long_operation_check(fake):
    with running(fake, 1, free_port()) as server:
        ctx = verify.Context(client=Client(server.port), hello=b"")
        with pytest.raises(verify.Mismatch) as err:
            verify.check_long_operation(ctx)
    assert "0.5682303266439076" in str(err.value)
    assert "0.5" in str(err.value)


def test_object_of_size_is_exact_json():
    import json

    body = verify._object_of_size(65536)
    assert len(body) == 65536
    assert isinstance(json.loads(body), dict)
