"""The service on several nodes (issue 36): the configuration parts, and the short version of
benchmarks/cluster.py on real processes (benchmarks/_cluster.py: a PostgreSQL primary and
its streaming standby, Redis, nginx in front of two API nodes and a stream node, two
turn workers, the review worker and beat, each on spare loopback ports of its own).

The short version: people play through nginx while an API node is killed and then the
primary is killed and its standby promoted (synchronous replication, the chosen mode);
every action acknowledged is in the log, every match played passes the log check, and
play carries on with no configuration changed. The long version, with its figures, is
`benchmarks/cluster.py`.
"""

import re
import shutil
import subprocess
import tempfile
import time
from pathlib import Path

import pytest

from benchmarks._cluster import (
    API_UPSTREAM,
    LISTEN,
    STREAM_UPSTREAM,
    Cluster,
    nginx_binary,
    nginx_main_config,
    nginx_server_config,
)
from benchmarks._server import ROOT
from benchmarks.api import SEATS, Client
from benchmarks.cluster import Load, check_logs, make_tokens
from euchre_service.settings import database_from_env

# ---------------------------------------------------------------- configuration


def test_a_database_url_may_name_several_hosts_for_libpq_to_choose_the_primary(monkeypatch):
    """dj_database_url refused a URL with several hosts (ParseError): with them and
    target_session_attrs=read-write, libpq connects to whichever is the primary now, so
    a promoted standby is found with no change of configuration."""
    monkeypatch.delenv("DATABASE_CONNECT_TIMEOUT", raising=False)  # bin/test sets its own
    url = "postgres://app:pw@127.0.0.1:5433,127.0.0.1:5434/euchre?target_session_attrs=read-write"
    database = database_from_env(url, conn_max_age=60)
    assert database["ENGINE"] == "django.db.backends.postgresql"
    assert (database["HOST"], database["PORT"]) == ("127.0.0.1,127.0.0.1", "5433,5434")
    assert (database["USER"], database["PASSWORD"], database["NAME"]) == ("app", "pw", "euchre")
    assert database["OPTIONS"]["target_session_attrs"] == "read-write"
    assert database["OPTIONS"]["connect_timeout"] == 2
    # A host without a port takes libpq's default (an empty item); one host is as before.
    mixed = database_from_env("postgres://u@[::1]:5433,db2/euchre", conn_max_age=0)
    assert (mixed["HOST"], mixed["PORT"]) == ("::1,db2", "5433,")
    one = database_from_env("postgres://u@db1:5433/euchre", conn_max_age=0)
    assert (one["HOST"], one["PORT"]) == ("db1", 5433)


def test_the_clusters_nginx_serves_productions_file_with_the_nodes_ports(tmp_path):
    """benchmarks/_cluster.py serves deploy/nginx.conf itself: only its upstreams' server
    lines (one per node, parameters kept) and its listen line differ; nginx -t takes it."""
    production = (ROOT / "deploy" / "nginx.conf").read_text()
    generated = nginx_server_config([1111, 2222], [3333], 4444)

    def others(text: str, *patterns: re.Pattern) -> list[str]:
        return [line for line in text.splitlines() if not any(p.match(line) for p in patterns)]

    nodes = re.compile(r"^\s*server 127\.0\.0\.1:\d+"), re.compile(r"^\s*listen 127\.0\.0\.1:")
    assert others(generated, *nodes) == others(production, API_UPSTREAM, STREAM_UPSTREAM, LISTEN)
    api = API_UPSTREAM.search(production).group(2)  # the parameters, on every node's line
    assert f"server 127.0.0.1:1111{api};\n    server 127.0.0.1:2222{api};" in generated
    assert "server 127.0.0.1:3333;" in generated and "listen 127.0.0.1:4444;" in generated
    assert "hash $match_key consistent;" in generated  # a match's requests to one node
    (tmp_path / "logs").mkdir()
    (tmp_path / "nginx-temp").mkdir()
    (tmp_path / "server.conf").write_text(generated)
    (tmp_path / "nginx.conf").write_text(nginx_main_config(tmp_path, tmp_path / "server.conf"))
    checked = subprocess.run(
        [nginx_binary(), "-t", "-c", str(tmp_path / "nginx.conf")], capture_output=True, text=True
    )
    assert checked.returncode == 0, checked.stderr


# ---------------------------------------------------------------- on real processes

MAX_LAG = 1  # seconds a replica may be behind and still be read (DATABASE_REPLICA_MAX_LAG)


@pytest.fixture(scope="module")
def cluster() -> Cluster:
    """The cluster with synchronous replication (the chosen commit mode), its own servers
    on spare ports, taken down after the module. Its folder in /tmp, not pytest's (the
    postgres user must reach its data folders)."""
    run_dir = Path(tempfile.mkdtemp(prefix="euchre-cluster-test-"))
    extra_env = {"DATABASE_REPLICA_MAX_LAG": str(MAX_LAG)}
    cluster = Cluster(run_dir, synchronous=True, extra_env=extra_env).start()
    yield cluster
    cluster.stop()
    shutil.rmtree(run_dir, ignore_errors=True)


def test_the_reads_that_may_lag_leave_a_standby_far_behind_for_the_primary(cluster):
    """The standby's replay paused (as one far behind would be): a match played to its
    end meanwhile is at once in the list of one's finished matches and in one's figures,
    since a replica more than DATABASE_REPLICA_MAX_LAG seconds behind is not read (they
    read the paused standby, without it); its replay is whole."""
    client = Client(cluster.nginx_port, make_tokens(cluster, 1)[0])
    cluster.sql(cluster.standby, "SELECT pg_wal_replay_pause()")
    try:
        time.sleep(MAX_LAG + 1.5)  # past the lag allowed, and the routers' last look
        body = {"seats": SEATS, "options": {"target_score": 1}}
        status, match, _ = client.call("POST", "/api/v1/matches", body)
        assert status == 201, match
        deadline = time.monotonic() + 180
        while match["status"] == "active":
            assert time.monotonic() < deadline, match
            status, match, _ = client.call("GET", f"/api/v1/matches/{match['id']}")
            legal = match["view"]["legal_actions"]
            if legal:
                path = f"/api/v1/matches/{match['id']}/actions"
                client.call("POST", path, {**legal[0], "expected_seq": match["seq"]})
            else:
                time.sleep(0.05)  # the computers' turns, on the turn workers
        status, body, _ = client.call("GET", "/api/v1/matches?status=finished")
        assert status == 200 and [m["id"] for m in body["results"]] == [match["id"]], body
        status, me, _ = client.call("GET", "/api/v1/me")
        status, stats, _ = client.call("GET", f"/api/v1/users/{me['username']}/stats")
        assert status == 200 and stats["all"]["matches"] == 1, stats
        status, replay, _ = client.call("GET", f"/api/v1/matches/{match['id']}/replay")
        assert status == 200 and replay["hands"][-1]["events"][-1]["seq"] == match["seq"]
        assert cluster.sql(cluster.standby, "SELECT pg_is_wal_replay_paused()")[0][0]
    finally:
        cluster.sql(cluster.standby, "SELECT pg_wal_replay_resume()")
        client.close()


def acks_since(load: Load, t: float, count: int, timeout: float = 180) -> None:
    """Until `count` actions were acknowledged after `t` (generous: a busy machine)."""
    deadline = time.monotonic() + timeout
    while sum(1 for o in load.since(t) if o.status == 200) < count:
        assert time.monotonic() < deadline, f"play stopped: {load.first_error}"
        time.sleep(0.2)


def test_an_api_node_and_the_primary_killed_lose_no_acknowledged_action(cluster):
    """Three clients play four people a match each, one a person against computers (the
    turn workers), all through nginx. API node 1 is killed: play goes on through node 2.
    Then the primary is killed and the standby promoted: play goes on, the service's
    processes reconnecting through their unchanged multi-host DATABASE_URL. Every
    acknowledged action is in its match's log (synchronous replication), and every log
    passes the log check."""
    load = Load(cluster.nginx_port, make_tokens(cluster, 4), computers=1).start()
    try:
        acks_since(load, time.monotonic(), 20)
        killed = time.monotonic()
        cluster.kill("api1")
        acks_since(load, killed, 20)  # nginx sends node 1's matches to node 2
        failed_over = time.monotonic()
        cluster.kill_postgres(cluster.primary)
        load.new_matches()  # no action after the failover at a seq acknowledged before it
        cluster.promote(cluster.standby)
        cluster.failover()
        acks_since(load, failed_over, 20)
        assert not cluster.sql(cluster.primary, "SELECT pg_is_in_recovery()")[0][0]
    finally:
        load.finish()
    checked = check_logs(cluster, load)
    assert checked["lost"] == {}, "acknowledged actions missing from the log"
    assert checked["bad"] == {}, "logs that fail the log check"
    assert len(load.acks) >= 3 and checked["matches"] >= len(load.acks)
