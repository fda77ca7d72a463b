"""The hostile client: everything a stranger can send, against the live production shape
(tests/hostile/conftest.py: gunicorn + uvicorn + a Celery worker + celery beat, production
settings, plain HTTP).

What must hold for every answer under /api/ (tests/hostile/answers.py): no 5xx, every
error the JSON body {"code", "detail"}, and every code in the catalogue
(games/http/error_codes.py, docs/errors.md) with one of its statuses.

- schemathesis, positive and negative data, every check it has plus that one, signed in
  with real tokens and with real ids (a running match against computer players, a hint,
  a match with open seats, a finished match for the stream, the rematch, the review,
  the ratings and the replay);
- hand-made fuzzing of the headers (Authorization, Idempotency-Key, Last-Event-ID,
  X-Forwarded-For, Host), of bodies (nested, oversized, not UTF-8, NaN, huge numbers,
  NUL characters) and of query strings. The player's feed (GET /me/stream) is fuzzed
  here only (with what it refuses): a feed it accepts stays open, which schemathesis
  would count as a hung request.

HOSTILE_FUZZ_SECONDS (default 60) is schemathesis's time budget, shared by its two runs.
HOSTILE_FUZZ_SEED (default a fixed seed, so that CI is repeatable and a failure can be
replayed) seeds its data; set another number, or "random", to explore further.
"""

import http.client
import json
import os
import subprocess
import sys
import time
from pathlib import Path

import pytest

from tests.hostile.answers import answer_problem
from tests.hostile.conftest import COMPUTERS, OPEN, Guest

# The database mark only makes pytest-django create the test database when this suite runs
# alone (it sets up those its tests mark); it is not transactional, and no test touches the
# database but over HTTP: the stack fixture (conftest.py) flushes it once, at the end.
pytestmark = [pytest.mark.slow, pytest.mark.django_db]

ROOT = Path(__file__).resolve().parents[2]
SECONDS = float(os.environ.get("HOSTILE_FUZZ_SECONDS", "60"))
SEED = os.environ.get("HOSTILE_FUZZ_SEED", "20261201")

# Operations whose rules the schema cannot state (a password's strength and a name's
# normal form, "exactly one seat is yours", which fields each kind of action takes): there a
# request the schema allows may still be refused, with 400 (or 422 for a rule of the game).
# Everywhere else schemathesis's positive_data_acceptance keeps its default.
BEYOND_THE_SCHEMA = "^/api/v1/(auth/register|matches|matches/[{]match_id[}]/actions)$"
AFTER_THE_END = (
    "^/api/v1/matches/[{]match_id[}]/(rematch(/accept|/decline)?|review|ratings|replay)$"
)
ACCEPTED_WITH_RULES = ["2xx", "400", "401", "403", "404", "409", "422", "429"]
# What counts as refusing a request the schema does not allow: schemathesis's list, plus the
# server's limits (413 a body, 414 a request line, 431 headers: negative data can be long).
REJECTED = ["400", "401", "403", "404", "405", "406", "409", "413", "414", "415", "422", "428",
            "429", "431", "5xx"]  # fmt: skip


# ---------------------------------------------------------------- schemathesis


def toml_string(value: str) -> str:
    return json.dumps(value)  # a JSON string of ASCII is a TOML basic string


def write_config(path: Path, token: str, parameters: dict[str, str], operations: list[dict]):
    lines = [f"headers = {{ Authorization = {toml_string('Token ' + token)} }}", ""]
    lines.append("[checks.negative_data_rejection]")
    lines.append(f"expected-statuses = [{', '.join(toml_string(s) for s in REJECTED)}]")
    lines += ["", "[parameters]"]
    lines += [f"{toml_string(k)} = {toml_string(v)}" for k, v in parameters.items()]
    for operation in operations:
        lines += ["", "[[operations]]"]
        for key, value in operation.items():
            if isinstance(value, dict):
                inner = ", ".join(f"{toml_string(k)} = {toml_string(v)}" for k, v in value.items())
                lines.append(f"{key} = {{ {inner} }}")
            elif isinstance(value, list):
                lines.append(f"{key} = [{', '.join(toml_string(v) for v in value)}]")
            else:
                lines.append(f"{key} = {toml_string(value)}")
    path.write_text("\n".join(lines) + "\n")


def schemathesis_run(name: str, schema_url: str, config: Path, seconds: float, *filters: str):
    """`st run`: every check, positive and negative data, until `seconds` are spent."""
    output = config.with_name(f"{name}.txt")
    argv = [
        sys.executable, "-m", "schemathesis.cli", "--config-file", str(config), "--no-color",
        "run", schema_url, *filters,
        "--checks", "all", "--mode", "all",
        "--phases", "examples,coverage,fuzzing",
        "--max-time", str(int(seconds)), "--max-examples", "400",
        "--workers", "2", "--request-timeout", "10",
        "--continue-on-failure", "--suppress-health-check", "all",
        "--generation-database", "none", "--output-truncate", "false",
    ]  # fmt: skip
    if SEED != "random":
        argv += ["--seed", SEED]
    env = {**os.environ, "PYTHONPATH": str(ROOT), "SCHEMATHESIS_HOOKS": "tests.hostile.st_hooks"}
    with open(output, "wb") as out:
        done = subprocess.run(
            argv, cwd=config.parent, env=env, stdout=out, stderr=subprocess.STDOUT,
            timeout=seconds + 240,
        )  # fmt: skip
    text = output.read_text(errors="replace")
    return done.returncode, text


def failures_of(text: str) -> str:
    start = text.find("= FAILURES =")
    start = text.rfind("\n", 0, start) if start != -1 else max(0, len(text) - 6000)
    return text[start : start + 20000]


def test_schemathesis_positive_and_negative_finds_no_5xx_and_only_catalogued_json_errors(
    stack, tmp_path
):
    player, leaver = Guest(stack), Guest(stack)
    logger_out, all_out = Guest(stack), Guest(stack)
    host = Guest(stack)
    playing = player.new_match(COMPUTERS)  # south bids first: the player's turn now
    hint = player.call("POST", f"matches/{playing}/hints", status=202)["id"]
    open_seats = host.new_match(OPEN)
    finished = player.new_match(COMPUTERS, options={"target_score": 1})
    player.play_to_the_end(finished)
    left = leaver.new_match(OPEN)

    api = tmp_path / "api.toml"
    write_config(
        api,
        player.token,
        {"path.match_id": playing, "path.hint_id": hint, "path.username": player.username},
        [
            # A cursor is the list's own (a string the schema cannot tell from any other).
            {"include-path": "/api/v1/users/{username}/matches",
             "checks.positive_data_acceptance.expected-statuses": ACCEPTED_WITH_RULES},
            {"include-path": "/api/v1/me/matches",
             "checks.positive_data_acceptance.expected-statuses": ACCEPTED_WITH_RULES},
            {
                "include-path-regex": BEYOND_THE_SCHEMA,
                "include-method": "POST",
                "checks.positive_data_acceptance.expected-statuses": ACCEPTED_WITH_RULES,
            },
            {"include-path": "/api/v1/matches/{match_id}/join",
             "parameters": {"path.match_id": open_seats}},
            # What is asked of a finished match (else each is 409 match_not_finished).
            {"include-path-regex": AFTER_THE_END, "parameters": {"path.match_id": finished}},
            {"include-path": "/api/v1/matches/{match_id}/leave",
             "parameters": {"path.match_id": left},
             "headers": {"Authorization": f"Token {leaver.token}"}},
            {"include-path": "/api/v1/auth/logout",
             "headers": {"Authorization": f"Token {logger_out.token}"}},
            {"include-path": "/api/v1/auth/logout-all",
             "headers": {"Authorization": f"Token {all_out.token}"}},
        ],
    )  # fmt: skip
    stream = tmp_path / "stream.toml"
    write_config(stream, player.token, {"path.match_id": finished}, [])

    results = [
        ("gunicorn: every operation but the stream", *schemathesis_run(
            "api", f"{player.api}/schema?format=json", api, SECONDS * 0.75,
            "--exclude-operation-id", "matches_stream", "--exclude-operation-id", "me_stream",
        )),
        ("uvicorn: the stream", *schemathesis_run(
            "stream", f"{player.streams}/schema?format=json", stream, SECONDS * 0.25,
            "--include-operation-id", "matches_stream",
        )),
    ]  # fmt: skip
    report = "\n\n".join(
        f"##### {what}: exit {code}\n{failures_of(text)}" for what, code, text in results
    )
    assert all(code == 0 for _what, code, _text in results), report
    for _what, _code, text in results:
        assert "Test cases:" in text and " passed" in text, text[-3000:]


# ---------------------------------------------------------------- hand-made fuzzing


class Sent:
    """One raw request and its answer (read for at most ANSWER_SECONDS: a stream that stays
    open is an answer that never ends, and a problem)."""

    ANSWER_SECONDS = 20

    def __init__(self, port: int, method: str, path: str, headers: list[tuple[str, bytes]],
                 body: bytes | None = None) -> None:  # fmt: skip
        self.request = f"{method} {path} {[(k, v[:80]) for k, v in headers]} body={body!r:.120}"
        self.late = False
        conn = http.client.HTTPConnection("127.0.0.1", port, timeout=self.ANSWER_SECONDS)
        try:
            conn.putrequest(method, path, skip_host=True, skip_accept_encoding=True)
            if not any(name.lower() == "host" for name, _v in headers):
                conn.putheader("Host", b"127.0.0.1")
            for name, value in headers:
                conn.putheader(name, value)
            if body is not None:
                conn.putheader("Content-Length", str(len(body)).encode())
            conn.endheaders(body)
            response = conn.getresponse()
            self.status = response.status
            self.content_type = response.getheader("Content-Type", "")
            self.body = self._read(response)
        finally:
            conn.close()

    def _read(self, response: http.client.HTTPResponse) -> bytes:
        deadline, chunks = time.monotonic() + self.ANSWER_SECONDS, []
        while time.monotonic() < deadline:
            chunk = response.read1(65536)
            if not chunk:
                return b"".join(chunks)
            chunks.append(chunk)
        self.late = True
        return b"".join(chunks)

    def problem(self) -> str | None:
        found = answer_problem(self.status, self.content_type, self.body)
        if self.late:
            found = f"the answer did not end within {self.ANSWER_SECONDS} s"
        return f"{self.request} -> {self.status} {self.body[:300]!r}: {found}" if found else None


def check_all(sent: list[Sent]) -> None:
    problems = [p for p in (s.problem() for s in sent) if p]
    assert not problems, f"{len(problems)} of {len(sent)} answers break the promise:\n" + (
        "\n".join(problems)
    )


def token_header(guest: Guest) -> tuple[str, bytes]:
    return ("Authorization", f"Token {guest.token}".encode())


JSON = ("Content-Type", b"application/json")

AUTHORIZATIONS = [
    b"", b" ", b"Token", b"Token ", b"token x", b"Token a b", b"Token \xff\xfe", b"Token \xc3(",
    b"Token " + b"A" * 4000, b"Bearer abc", b"Basic YWxpY2U6cGFzcw==", b"Token %00",
    b"Token \xe2\x80\x8b", b"Token 0000000000000000" + b"f" * 112,
]  # fmt: skip
FORWARDED = [b"", b"garbage", b"10.0.0.1", b"10.0.0.1, 10.0.0.2", b"::1", b"999.999.999.999",
             b", , ,", b"1.1.1.1," * 200, b"\xff\xfe", b"unknown"]  # fmt: skip
HOSTS = [b"evil.example", b"", b"127.0.0.1:99999", b"[::1", b"a" * 300, b"localhost:abc",
         b"127.0.0.1\xff", b"127.0.0.1, evil.example", b"*"]  # fmt: skip
IDEMPOTENCY_KEYS = [b"", b" ", b"k" * 129, b"k" * 4000, b"\xff\xfe", b"caf\xc3\xa9", b"a b",
                    b"'; DROP TABLE games_event;--"]  # fmt: skip
# Each is refused (400) but the empty one (no Last-Event-ID); a good one on a running match
# would be a stream that stays open, so only the finished match gets those.
LAST_EVENT_IDS = [b"-1", b"\xc2\xb2", b"\xd9\xa3", b"9" * 20, b"1e3", b"\xff", b"0x10",
                  b"1 2", b"+1", b"\xef\xbc\x91"]  # fmt: skip
GOOD_LAST_EVENT_IDS = [b"", b" 1", b"1" * 12, b"0"]
# The player's feed (GET /me/stream) never ends: only what it refuses is sent to it. Its ids
# are up to 20 digits (positions, not seqs).
FEED_LAST_EVENT_IDS = [v for v in LAST_EVENT_IDS if v != b"9" * 20] + [b"9" * 21]
FEED_HOSTS = [v for v in HOSTS if v != b"127.0.0.1:99999"]  # Django takes any port


def test_hostile_headers_get_catalogued_json_answers(stack):
    guest = Guest(stack)
    match_id = guest.new_match(COMPUTERS)
    finished = guest.new_match(COMPUTERS, options={"target_score": 1})
    guest.play_to_the_end(finished)
    api, streams = stack.port, stack.stream_port
    paths = ["/api/v1/matches", f"/api/v1/matches/{match_id}", f"/api/v1/matches/{match_id}/events",
             "/api/v1/me", "/api/v1/me/matches"]  # fmt: skip
    feed = "/api/v1/me/stream"
    sent: list[Sent] = []
    for value in AUTHORIZATIONS:
        for path in paths:
            sent.append(Sent(api, "GET", path, [("Authorization", value)]))
        sent.append(Sent(api, "POST", "/api/v1/auth/logout", [("Authorization", value)]))
        sent.append(Sent(api, "POST", "/api/v1/quickplay", [("Authorization", value)]))
        sent.append(Sent(streams, "GET", f"/api/v1/matches/{finished}/stream",
                         [("Authorization", value)]))  # fmt: skip
        sent.append(Sent(streams, "GET", feed, [("Authorization", value)]))
    for value in FORWARDED:
        for path in ("/api/v1/auth/guest", "/api/v1/auth/token"):
            body = b'{"username": "nobody", "password": "wrong-password"}'
            sent.append(Sent(api, "POST", path, [("X-Forwarded-For", value), JSON], body))
        sent.append(Sent(api, "GET", paths[0], [("X-Forwarded-For", value), token_header(guest)]))
    for value in HOSTS:
        for path in paths:
            sent.append(Sent(api, "GET", path, [("Host", value), token_header(guest)]))
        sent.append(Sent(streams, "GET", f"/api/v1/matches/{finished}/stream",
                         [("Host", value), token_header(guest)]))  # fmt: skip
        if value in FEED_HOSTS:
            sent.append(Sent(streams, "GET", feed, [("Host", value), token_header(guest)]))
    for value in IDEMPOTENCY_KEYS:
        sent.append(Sent(api, "POST", f"/api/v1/matches/{match_id}/actions",
                         [("Idempotency-Key", value), token_header(guest), JSON],
                         b'{"type": "pass"}'))  # fmt: skip
    for value in LAST_EVENT_IDS:
        for match in (finished, match_id):
            sent.append(Sent(streams, "GET", f"/api/v1/matches/{match}/stream",
                             [("Last-Event-ID", value), token_header(guest)]))  # fmt: skip
    for value in GOOD_LAST_EVENT_IDS:
        sent.append(Sent(streams, "GET", f"/api/v1/matches/{finished}/stream",
                         [("Last-Event-ID", value), token_header(guest)]))  # fmt: skip
    for value in FEED_LAST_EVENT_IDS:
        sent.append(Sent(streams, "GET", feed, [("Last-Event-ID", value), token_header(guest)]))
    for method in ("POST", "PUT", "DELETE", "TRACE", "OPTIONS", "BREW"):
        sent.append(Sent(streams, method, feed, [token_header(guest), JSON], b"{}"))
    check_all(sent)


def nested(depth: int) -> bytes:
    return b"[" * depth + b"]" * depth


BODIES: list[tuple[str, bytes, bytes]] = [
    ("nested arrays", b"application/json", nested(2000)),
    ("nested objects", b"application/json", b'{"a":' * 2000 + b"1" + b"}" * 2000),
    ("nested, shallow enough to parse", b"application/json", nested(500)),
    ("over the size limit", b"application/json", b'{"username": "' + b"a" * 70_000 + b'"}'),
    ("not UTF-8", b"application/json", b'{"username": "\xff\xfe", "password": "\xc3("}'),
    ("latin-1 declared", b"application/json; charset=latin-1", b'{"username": "caf\xe9"}'),
    ("NaN", b"application/json", b'{"seats": NaN, "username": NaN, "type": NaN, "seat": NaN}'),
    ("Infinity", b"application/json", b'{"seat": Infinity, "expected_seq": -Infinity}'),
    ("huge integer", b"application/json", b'{"seat": 1' + b"0" * 5000 + b', "expected_seq": 1'
     + b"0" * 400 + b"}"),
    ("huge float", b"application/json", b'{"seat": 1e999999, "expected_seq": 1.5e308}'),
    ("NUL characters", b"application/json",
     b'{"username": "a\\u0000b", "password": "p\\u0000assword", "type": "p\\u0000ass",'
     b' "card": "J\\u0000", "suit": "\\u0000"}'),
    ("lone surrogates", b"application/json", b'{"username": "\\ud800", "password": "\\udfff"}'),
    ("not an object", b"application/json", b'[1, 2, 3]'),
    ("a bare string", b"application/json", b'"hello"'),
    ("null", b"application/json", b"null"),
    ("empty", b"application/json", b""),
    ("not JSON", b"application/json", b"{not json"),
    ("form", b"application/x-www-form-urlencoded", b"username=a&password=b"),
    ("multipart", b"multipart/form-data; boundary=x", b"--x\r\nContent-Disposition: form-data;"
     b' name="a"\r\n\r\nb\r\n--x--\r\n'),
    ("text", b"text/plain", b"hello"),
    ("no type", b"", b'{"type": "pass"}'),
    ("duplicate keys", b"application/json", b'{"type": "pass", "type": "play", "card": "JH"}'),
    ("deep seats", b"application/json", b'{"seats": [' + b'{"kind": "me"},' * 3000
     + b'{"kind": "me"}]}'),
    ("wrong types", b"application/json", b'{"seats": {"kind": "me"}, "options": [],'
     b' "hints_allowed": "yes", "turn_seconds": "5", "type": {}, "card": [], "seat": true}'),
]  # fmt: skip


def test_hostile_bodies_get_catalogued_json_answers(stack):
    guest = Guest(stack)
    match_id = guest.new_match(COMPUTERS)
    open_seats = Guest(stack).new_match(OPEN)
    finished = guest.new_match(COMPUTERS, options={"target_score": 1})
    guest.play_to_the_end(finished)
    paths = [
        "/api/v1/auth/register", "/api/v1/auth/token", "/api/v1/auth/guest", "/api/v1/matches",
        f"/api/v1/matches/{open_seats}/join", f"/api/v1/matches/{match_id}/actions",
        f"/api/v1/matches/{match_id}/hints", "/api/v1/quickplay",
        f"/api/v1/matches/{finished}/rematch", f"/api/v1/matches/{finished}/rematch/accept",
        f"/api/v1/matches/{finished}/rematch/decline",
    ]  # fmt: skip
    sent: list[Sent] = []
    for _what, content_type, body in BODIES:
        headers = [token_header(guest)]
        if content_type:
            headers.append(("Content-Type", content_type))
        for path in paths:
            sent.append(Sent(stack.port, "POST", path, headers, body))
    for method in ("PUT", "PATCH", "DELETE", "TRACE", "OPTIONS", "BREW"):
        for path in paths + [f"/api/v1/matches/{match_id}/events"]:
            sent.append(Sent(stack.port, method, path, [token_header(guest), JSON], b"{}"))
    check_all(sent)


QUERIES = [
    "status=", "status=%ff", "status=waiting&status=active", "status[]=active", "page=0",
    "page=99999999999999999999", "page=-1", "page=1e3", "page_size=0", "page_size=101",
    "page_size=%00", "after=1e3", "after=-1", "after=%c2%b2", "after=%d9%a3", "after=",
    "after=1&after=2", "after=" + "9" * 30, "surprise=1", "%ff=%fe", "a" * 3500,
    "status=active&" * 250, "format=xml", "format=api", "page=2&page_size=100",
]  # fmt: skip
# Long, but within gunicorn's request line limit (4094 bytes): past it gunicorn itself
# answers 414 with its own HTML page before any of the service's code runs (as nginx in
# front would with its own), which no setting of the service can make JSON.


def test_hostile_query_strings_get_catalogued_json_answers(stack):
    guest = Guest(stack)
    match_id = guest.new_match(COMPUTERS)
    finished = guest.new_match(COMPUTERS, options={"target_score": 1})
    guest.play_to_the_end(finished)
    paths = ["/api/v1/matches", f"/api/v1/matches/{match_id}/events",
             f"/api/v1/matches/{match_id}", f"/api/v1/matches/{finished}/replay",
             f"/api/v1/matches/{finished}/review", f"/api/v1/matches/{finished}/ratings",
             "/api/v1/matches/public", f"/api/v1/users/{guest.username}/matches",
             f"/api/v1/users/{guest.username}/stats", "/api/v1/leaderboard", "/api/v1/me",
             "/api/v1/me/matches"]  # fmt: skip
    sent: list[Sent] = []
    for query in QUERIES:
        for path in paths:
            sent.append(Sent(stack.port, "GET", f"{path}?{query}", [token_header(guest)]))
        sent.append(
            Sent(
                stack.stream_port,
                "GET",
                f"/api/v1/matches/{finished}/stream?{query}",
                [token_header(guest)],
            )
        )
    for path in (
        "/api/v1/nope",
        "/api/v1/matches/",
        "/api/v1/",
        "/api/",
        "/api/v1/matches//x",
        "/api/v1/matches/%ff",
        "/api/v1/hints/..%2f..%2fetc",
        "/api/v1/schema?format=x",
    ):
        sent.append(Sent(stack.port, "GET", path, [token_header(guest)]))  # fmt: skip
    check_all(sent)


def test_gunicorns_own_refusals_are_json_error_bodies(stack):
    """Over gunicorn's limits (a request line past 4094 bytes, a header past 8190) gunicorn
    answers before the service's code runs: with its HTML page, until
    euchre_service/gunicorn_errors.py. Found by schemathesis's negative query arrays."""
    guest = Guest(stack)
    long_line = Sent(stack.port, "GET", "/api/v1/matches?" + "after=1&" * 600,
                     [token_header(guest)])  # fmt: skip
    long_header = Sent(stack.port, "GET", "/api/v1/matches",
                       [token_header(guest), ("X-Padding", b"p" * 9000)])  # fmt: skip
    padding = [(f"X-H{i}", b"1") for i in range(120)]
    many_headers = Sent(stack.port, "GET", "/api/v1/matches", [token_header(guest), *padding])
    malformed = Sent(stack.port, "GET", "/api/v1/matches", [("Bad Header Name", b"1")])
    assert (long_line.status, long_line.content_type) == (414, "application/json")
    assert json.loads(long_line.body)["code"] == "uri_too_long"
    for sent in (long_header, many_headers):
        assert (sent.status, json.loads(sent.body)["code"]) == (431, "headers_too_large")
    assert (malformed.status, json.loads(malformed.body)["code"]) == (400, "malformed_request")
    check_all([long_line, long_header, many_headers, malformed])


def test_the_live_service_stays_up_through_it_all(stack):
    """After the fuzzing every process still runs and answers (nothing crashed a worker)."""
    for name, proc in stack.processes:
        assert proc.poll() is None, f"{name} exited:\n{stack.log_tail(name)}"
    guest = Guest(stack)
    match_id = guest.new_match(COMPUTERS)
    deadline = time.monotonic() + 120  # generous: a busy machine
    while guest.call("GET", f"matches/{match_id}")["view"]["legal_actions"] == []:
        assert time.monotonic() < deadline
        time.sleep(0.1)
    assert guest.call("POST", f"matches/{match_id}/actions", {"type": "pass"})["seq"] > 0
