"""The event table partitioned by hash of the match, against the same table unpartitioned.

    .venv/bin/python benchmarks/partitioning.py                  # 16 partitions
    .venv/bin/python benchmarks/partitioning.py --partitions 32 --background 4000

Makes two fresh databases with the migrations (euchre_bench_scale_plain and
euchre_bench_scale_part, dropped at the end; a Redis server of its own each), and converts
the second's games_event to a table partitioned by HASH (match_id) (`PARTITION_SQL`: the
production step docs/operations/capacity.md describes). Then, on each:

1. plays --matches whole matches through the service (Django's test client in a child
   process: the whole middleware, DRF and service path, one person and three computer
   players, eager), and checks the append-only trigger still refuses an UPDATE;
2. adds --background matches (copies of a played one's row and events) so the table is
   not tiny;
3. times, alternating between the two databases in --rounds rounds (so drift on a shared
   machine hits both alike), a match's log read (the read every fold, replay and stream
   catch-up makes) and a one-event INSERT in its own transaction (an action's insert), as
   single statements over one connection; the medians of the rounds are printed, and the
   ratios partitioned / plain;
4. prints EXPLAIN of the log read (one partition scanned) and of the feed's newest-event
   read (every partition: the one query that is not by match).
"""

import argparse
import contextlib
import itertools
import json
import os
import random
import re
import statistics
import sys
import time

sys.path.insert(0, os.path.dirname(os.path.dirname(os.path.abspath(__file__))))

from benchmarks._server import Stack, add_stack_arguments, ms  # noqa: E402

SEATS = [{"kind": "me"}] + [{"kind": "computer", "level": "random"}] * 3

# The production step: the same columns, checks, foreign key and trigger; the primary key
# must contain the partition key, so it is (id, match_id) (id still comes from the one
# identity sequence, so it stays unique; Django keeps `id` as the model's primary key).
PARTITION_SQL = """
ALTER TABLE games_event RENAME TO games_event_unpartitioned;
CREATE TABLE games_event (
    LIKE games_event_unpartitioned INCLUDING DEFAULTS INCLUDING IDENTITY INCLUDING CONSTRAINTS
) PARTITION BY HASH (match_id);
{partitions}
INSERT INTO games_event SELECT * FROM games_event_unpartitioned;
SELECT setval(pg_get_serial_sequence('games_event', 'id'),
              coalesce((SELECT max(id) FROM games_event), 0) + 1, false);
DROP TABLE games_event_unpartitioned;
ALTER TABLE games_event ADD CONSTRAINT games_event_pkey PRIMARY KEY (id, match_id);
ALTER TABLE games_event ADD CONSTRAINT event_unique_seq UNIQUE (match_id, seq);
ALTER TABLE games_event ADD CONSTRAINT games_event_match_id_fk_games_match_id
    FOREIGN KEY (match_id) REFERENCES games_match (id) DEFERRABLE INITIALLY DEFERRED;
CREATE TRIGGER games_event_append_only BEFORE UPDATE OR DELETE ON games_event
    FOR EACH ROW EXECUTE FUNCTION games_event_append_only();
"""
PARTITION = (
    "CREATE TABLE games_event_p{i} PARTITION OF games_event"
    " FOR VALUES WITH (MODULUS {n}, REMAINDER {i});"
)
READ_LOG = (
    "SELECT id, seq, type, seat, payload, created_at FROM games_event"
    " WHERE match_id = %s ORDER BY seq"
)
INSERT_EVENT = (
    "INSERT INTO games_event (match_id, seq, type, seat, payload, created_at)"
    " VALUES (%s, %s, 'bid_passed', 1, '{}'::jsonb, now())"
)
NEWEST_EVENT = "SELECT id FROM games_event ORDER BY id DESC LIMIT 1"  # games/http/feed.py


def partition_sql(partitions: int) -> str:
    parts = "\n".join(PARTITION.format(i=i, n=partitions) for i in range(partitions))
    return PARTITION_SQL.format(partitions=parts)


def main() -> int:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--partitions", type=int, default=16)
    parser.add_argument("--matches", type=int, default=4, help="played through the service")
    parser.add_argument("--background", type=int, default=2000, help="matches copied in")
    parser.add_argument("--ops", type=int, default=400, help="reads and inserts a round")
    parser.add_argument("--rounds", type=int, default=5)
    parser.add_argument("--play", action="store_true", help=argparse.SUPPRESS)  # the child
    add_stack_arguments(parser, database="euchre_bench_scale", keep_database=False)
    args = parser.parse_args()
    if args.play:
        return play_here(args)
    print(
        f"benchmarks/partitioning.py: {args.partitions} partitions, {args.matches} matches"
        f" played, {args.background} copied in; load average {load()}"
    )
    stacks = {}
    with contextlib.ExitStack() as running:
        for layout in ("plain", "part"):
            url = f"{args.database_url}_{layout}"
            named = argparse.Namespace(**{**vars(args), "database_url": url})
            stack = Stack.from_args(named, "euchre-partitioning-", eager=True)
            stacks[layout] = running.enter_context(stack)
            if layout == "part":
                execute(url, partition_sql(args.partitions))
            played = play(stack, args)
            print(
                f"  {layout:5}: played {played['matches']} matches through the service,"
                f" {played['posts']} action POSTs, {played['wall_ms']:.1f} ms wall a POST"
                f" (with three computer moves each, in-process)"
            )
            print(f"  {layout:5}: append-only trigger: {trigger_refuses(url)}")
            background(url, args.background)
        measure(stacks, args)
        explain(stacks["part"].database_url, args.partitions)
    print(f"  load average at the end: {load()}")
    return 0


def load() -> str:
    return " ".join(f"{x:.2f}" for x in os.getloadavg())


def execute(url: str, sql: str) -> None:
    import psycopg

    with psycopg.connect(url) as conn:  # one transaction
        conn.execute(sql)


def play(stack: Stack, args: argparse.Namespace) -> dict:
    """The child process plays the matches (Django set up on this stack's database and
    Redis, from the environment it is given)."""
    done = stack.python(__file__, "--play", "--matches", str(args.matches), timeout=900)
    return json.loads(done.stdout.strip().splitlines()[-1])


def play_here(args: argparse.Namespace) -> int:
    import django

    django.setup()
    from benchmarks._server import local_seats

    call = local_seats(f"part{os.getpid()}_", seats=1)
    posts, spent = 0, 0.0
    for _ in range(args.matches):
        match_id = call("POST", "/api/v1/matches", {"seats": SEATS}).json()["id"]
        while True:
            view = call("GET", f"/api/v1/matches/{match_id}").json()
            if view["status"] == "finished":
                break
            started = time.perf_counter()
            answer = call(
                "POST",
                f"/api/v1/matches/{match_id}/actions",
                {**view["view"]["legal_actions"][0], "expected_seq": view["seq"]},
            )
            spent += time.perf_counter() - started
            assert answer.status_code == 200, answer.content
            posts += 1
        replay = call("GET", f"/api/v1/matches/{match_id}/replay")
        assert replay.status_code == 200, replay.content
    print(json.dumps({"matches": args.matches, "posts": posts, "wall_ms": spent / posts * 1000}))
    return 0


def trigger_refuses(url: str) -> str:
    import psycopg

    with psycopg.connect(url) as conn:
        try:
            # The newest row: a match's hands over have moved into chunks (seq 1 among them).
            conn.execute(f"UPDATE games_event SET type = type WHERE id = ({NEWEST_EVENT})")
        except psycopg.errors.RaiseException as exc:
            return f"UPDATE refused ({str(exc).splitlines()[0]})"
    raise SystemExit("the append-only trigger let an UPDATE through")


def background(url: str, count: int) -> None:
    """`count` copies of a finished match: its row (a new id) and its events."""
    import psycopg

    with psycopg.connect(url) as conn:
        columns = [
            row[0]
            for row in conn.execute(
                "SELECT column_name FROM information_schema.columns"
                " WHERE table_name = 'games_match' AND column_name <> 'id'"
                " ORDER BY ordinal_position"
            )
        ]
        listed = ", ".join(columns)
        template = conn.execute(
            "SELECT id FROM games_match WHERE status = 'finished' LIMIT 1"
        ).fetchone()[0]
        conn.execute(
            "CREATE TEMP TABLE copies AS"
            " SELECT gen_random_uuid() AS id FROM generate_series(1, %s)",
            (count,),
        )
        conn.execute(
            f"INSERT INTO games_match (id, {listed}) SELECT c.id, {listed}"
            " FROM copies c, games_match m WHERE m.id = %s",
            (template,),
        )
        conn.execute(
            "INSERT INTO games_event (match_id, seq, type, seat, payload, created_at)"
            " SELECT c.id, e.seq, e.type, e.seat, e.payload, e.created_at"
            " FROM copies c, games_event e WHERE e.match_id = %s",
            (template,),
        )
    with psycopg.connect(url, autocommit=True) as conn:
        conn.execute("VACUUM ANALYZE")


def measure(stacks: dict[str, Stack], args: argparse.Namespace) -> None:
    import psycopg

    conns = {k: psycopg.connect(s.database_url, autocommit=True) for k, s in stacks.items()}
    matches = {k: [r[0] for r in c.execute("SELECT id FROM games_match")] for k, c in conns.items()}
    figures: dict[tuple[str, str], list[float]] = {}
    seqs = itertools.count(10_000)  # past any match's own events
    rng = random.Random(15)
    for _ in range(args.rounds):
        for layout, conn in conns.items():
            picks = [rng.choice(matches[layout]) for _ in range(args.ops)]
            reads = timed(lambda m, c=conn: c.execute(READ_LOG, (m,)).fetchall(), picks)
            inserts = timed(lambda m, c=conn: c.execute(INSERT_EVENT, (m, next(seqs))), picks)
            for name, values in (("read", reads), ("insert", inserts)):
                figures.setdefault((layout, name), []).append(statistics.mean(values))
                figures.setdefault((layout, name + " p99"), []).append(ms(values, 99))
    sizes = {k: table_bytes(c) for k, c in conns.items()}
    rows = conns["plain"].execute("SELECT count(*) FROM games_event").fetchone()[0]
    for conn in conns.values():
        conn.close()
    print(
        f"  {rows} events a table; medians of {args.rounds} rounds of {args.ops} statements,"
        f" one connection, alternating (load average {load()}):"
    )
    for name, label in (
        ("read", "a match's log read (ORDER BY seq), mean"),
        ("read p99", "  the same, p99"),
        ("insert", "one-event INSERT + commit, mean"),
        ("insert p99", "  the same, p99"),
    ):
        plain = statistics.median(figures[("plain", name)])
        part = statistics.median(figures[("part", name)])
        scale = 1000 if name in ("read", "insert") else 1  # means in seconds, p99 in ms
        print(
            f"    {label:<42} plain {plain * scale:7.3f} ms  partitioned {part * scale:7.3f} ms"
            f"  ratio {part / plain:.2f}"
        )
    print(
        f"    table with its indexes: plain {sizes['plain'] / 2**20:.1f} MiB,"
        f" partitioned {sizes['part'] / 2**20:.1f} MiB"
    )


def timed(operation, items: list) -> list[float]:
    spent = []
    for item in items:
        started = time.perf_counter()
        operation(item)
        spent.append(time.perf_counter() - started)
    return spent


def table_bytes(conn) -> int:
    return conn.execute(
        "SELECT coalesce(sum(pg_total_relation_size(relid)), pg_total_relation_size('games_event'))"
        " FROM pg_partition_tree('games_event') WHERE isleaf"
    ).fetchone()[0]


def partitions_in(plan: list[str]) -> set[str]:
    """The partitions a plan scans (a scan names the table, then its alias)."""
    return set(re.findall(r" on (games_event_p\d+) ", "\n".join(plan)))


def explain(url: str, partitions: int) -> None:
    import psycopg

    with psycopg.connect(url) as conn:
        match = conn.execute("SELECT match_id FROM games_event LIMIT 1").fetchone()[0]
        plan = [r[0] for r in conn.execute("EXPLAIN (ANALYZE, COSTS OFF) " + READ_LOG, (match,))]
        touched = partitions_in(plan)
        print(f"  EXPLAIN ANALYZE of a match's log read: {len(touched)} of {partitions} partitions")
        print("\n".join(f"    {line}" for line in plan))
        if len(touched) != 1:
            raise SystemExit("a match's read touched more than one partition")
        plan = [r[0] for r in conn.execute("EXPLAIN (COSTS OFF) " + NEWEST_EVENT)]
        touched = partitions_in(plan)
        print(
            f"  EXPLAIN of the feed's newest-event read (games/http/feed.py): "
            f"{len(touched)} partitions,"
            " each by its primary key's index (a merge of the newest of each)"
        )


if __name__ == "__main__":
    sys.exit(main())
