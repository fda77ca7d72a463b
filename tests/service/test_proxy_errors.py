"""What nginx (deploy/nginx.conf) answers itself under /api/ is the API's JSON error
body too: a body over client_max_body_size, and the API or stream process down or too
slow (502/504 from nginx become 503 service_unavailable with Retry-After). Upstream
answers pass through untouched (no proxy_intercept_errors). Checked here on the file;
it was run under nginx 1.22 when written (docs/operations.md)."""

import json
import re

from django.conf import settings

from tests.service.test_deploy_files import nginx_conf


def locations() -> dict[str, str]:
    return {
        m.group(1): m.group(2)
        for m in re.finditer(r"location ([^{]+?) \{(.*?)\n    \}", nginx_conf(), re.DOTALL)
    }


def test_the_proxys_own_errors_under_the_api_are_the_json_error_body():
    found = locations()
    for api in ("~ ^/api/v1/(matches/[^/]+|me)/stream$", "/api/"):
        assert "error_page 413 @payload_too_large;" in found[api], api
        assert "error_page 502 503 504 =503 @unavailable;" in found[api], api
    # Both streams (a match's and the player's feed) go to the ASGI server, unbuffered.
    stream = found["~ ^/api/v1/(matches/[^/]+|me)/stream$"]
    assert "proxy_buffering off;" in stream and "proxy_pass http://euchre_stream;" in stream
    route = re.compile("^/api/v1/(matches/[^/]+|me)/stream$")
    assert route.match("/api/v1/me/stream") and route.match("/api/v1/matches/x/stream")
    assert not route.match("/api/v1/me/matches")
    assert "error_page" not in found["/"]  # the admin and /play/ keep nginx's pages
    assert "proxy_intercept_errors" not in nginx_conf()  # the service's own errors pass
    for name, status, code in (
        ("@payload_too_large", 413, "payload_too_large"),
        ("@unavailable", 503, "service_unavailable"),
    ):
        block = found[name]
        assert "default_type application/json;" in block
        body = re.search(rf"return {status} '(.*)';", block).group(1)
        assert json.loads(body)["code"] == code and json.loads(body)["detail"].endswith(".")
    assert "add_header Retry-After 5 always;" in found["@unavailable"]


def test_the_proxys_body_limit_is_the_services():
    limit = int(re.search(r"client_max_body_size (\d+)k;", nginx_conf()).group(1)) * 1024
    assert limit == settings.DATA_UPLOAD_MAX_MEMORY_SIZE
    assert f"larger than {limit} bytes" in locations()["@payload_too_large"]
