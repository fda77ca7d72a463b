"""PostgreSQL bytes per finished match: events, projections and idempotency keys.

    .venv/bin/python benchmarks/storage.py                # 8 matches, four people each
    .venv/bin/python benchmarks/storage.py --matches 2    # a short run

Makes a fresh database (euchre_bench_storage, dropped at the end; a Redis server of its
own), with the benchmark's settings, and plays --matches whole matches in this
process through Django's test client: four people a match, every action a POST with its
own Idempotency-Key (as a careful client retries), first legal action. The hands over
move into chunks as they would on a server (games.tasks.compact_log, here in a thread of
this process, as in-process mode runs it).

Each match is measured at every moment: after each action (once the chunk its hand's end
asked for is written), just after it finished, and after its log is archived: each of its
rows' columns and header (pg_column_size of the row + 28 bytes) and, for each row, an
entry in each B-tree index of its table (8 bytes of header, the indexed columns, 4 of line
pointer), in every table that holds something of it (GOAL_KB: at most 50 KB). Then, as
before, the tables once all matches are played, before and after archiving: rows and
bytes per finished match (pg_total_relation_size-style, after VACUUM, so dead rows are
not counted: a row's columns and header, plus its share of the indexes in proportion to
their pages), with the size on disk in whole pages beside it (it over-counts a short run:
every table and index has a first page or few however few rows it holds).
"""

import argparse
import os
import sys
import time
import uuid
from typing import Any

sys.path.insert(0, os.path.dirname(os.path.dirname(os.path.abspath(__file__))))

from benchmarks._server import Stack, add_stack_arguments, local_seats  # noqa: E402

PEOPLE = [{"kind": "me"}, {"kind": "open"}, {"kind": "open"}, {"kind": "open"}]
TABLES = {
    "games_event": "events",
    "games_eventchunk": "events",
    "games_eventarchive": "events",
    "games_hand": "projections",
    "games_match": "projections",
    "games_seat": "projections",
    "games_idempotencykeys": "idempotency keys",
    "games_idempotentresponse": "idempotency keys",  # before issue 33: a row a key
}
# The column of each table that says which match a row is of.
MATCH_COLUMN = {table: "match_id" for table in TABLES} | {"games_match": "id"}
GOAL_KB = 50


def main() -> int:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--matches", type=int, default=8)
    add_stack_arguments(parser, database="euchre_bench_storage", keep_database=False)
    args = parser.parse_args()
    stack = Stack.from_args(args, "euchre-storage-", eager=True)
    with stack:
        stack.django_here()
        moments = play(args.matches)
        from django.db import connections  # Django is set up by now

        connections.close_all()
        before = report(stack, "before archiving: the live rows and chunks")
        archived = archive_all()
        moments["after archiving"] = [measured(m) for m in moments.pop("matches")]
        connections.close_all()
        after = report(stack, f"after archiving ({archived} logs, games.log.archive)")
        compare_compression(stack)
        print_moments(moments)
        print(
            f"  events + projections a finished match: {before:.1f} KB before, {after:.1f} KB after"
        )
    return 0


def play(matches: int) -> dict[str, list]:
    """Plays the matches; each one's bytes (match_bytes, in KB) at its peak while played
    and just after it finished (and the matches, under "matches")."""
    call = local_seats("storage")
    moments: dict[str, list] = {"while played (peak)": [], "just after finishing": []}
    moments["matches"] = []
    for _ in range(matches):
        match_id = call("POST", "/api/v1/matches", {"seats": PEOPLE}).json()["id"]
        for other in (1, 2, 3):
            call("POST", f"/api/v1/matches/{match_id}/join", {"seat": other}, seat=other)
        seat, peak = 0, 0.0
        while True:
            view = call("GET", f"/api/v1/matches/{match_id}", seat=seat).json()
            if view["status"] == "finished":
                break
            legal = view["view"]["legal_actions"]
            if not legal:
                seat = view["view"]["turn"]
                continue
            answer = call(
                "POST",
                f"/api/v1/matches/{match_id}/actions",
                {**legal[0], "expected_seq": view["seq"]},
                seat=seat,
                HTTP_IDEMPOTENCY_KEY=str(uuid.uuid4()),
            )
            assert answer.status_code == 200, answer.content
            peak = max(peak, measured(match_id))
        moments["while played (peak)"].append(peak)
        moments["just after finishing"].append(measured(match_id))
        moments["matches"].append(match_id)
    return moments


def measured(match_id: str) -> float:
    """The match's bytes (KB) once its hands over are chunks: the chunk a hand's end asks
    for is written by a thread here (as by a worker on a server) a moment after it."""
    from django.db import connection

    with connection.cursor() as cursor:
        deadline = time.monotonic() + 60
        while _rows_to_compact(cursor, match_id) and time.monotonic() < deadline:
            time.sleep(0.01)
        return sum(match_bytes(cursor, match_id).values()) / 1024


def _rows_to_compact(cursor, match_id: str) -> bool:
    """Whether a hand over of the match is still rows (two deals among them)."""
    from games.log import events as V  # Django is set up by now

    cursor.execute(
        "SELECT count(*) > 1 FROM games_event WHERE match_id = %s AND type = %s",
        [match_id, V.HAND_DEALT],
    )
    return cursor.fetchone()[0]


def match_bytes(cursor, match_id: Any) -> dict[str, int]:
    """What one match takes in each table that holds something of it: each of its rows'
    columns and header (pg_column_size of the row + 28 bytes, as report() counts a row)
    and an entry in each of the table's B-tree indexes (8 bytes of header, the indexed
    columns aligned to 8, 4 of line pointer; a partial index counted for every row). One
    statement; `cursor` is a DB-API cursor (Django's or psycopg's)."""
    if not _MATCH_BYTES:
        _MATCH_BYTES.append(_bytes_sql(cursor, "t.{column} = %s"))
    cursor.execute(_MATCH_BYTES[0], [v for table in TABLES for v in (table, str(match_id))])
    return {table: int(size) for table, size in cursor.fetchall()}


def all_bytes(cursor) -> dict[str, int]:
    """match_bytes of every row of each table."""
    cursor.execute(_bytes_sql(cursor, "true"), list(TABLES))
    return {table: int(size) for table, size in cursor.fetchall()}


_MATCH_BYTES: list[str] = []  # the statement, made once


def _bytes_sql(cursor, where: str) -> str:
    parts = []
    for table in TABLES:
        cursor.execute(
            "SELECT (SELECT array_agg(a.attname::text ORDER BY k.i)"
            " FROM unnest(x.indkey) WITH ORDINALITY AS k(attnum, i)"
            " JOIN pg_attribute a ON a.attrelid = x.indrelid AND a.attnum = k.attnum)"
            " FROM pg_index x JOIN pg_class c ON c.oid = x.indexrelid"
            " JOIN pg_am am ON am.oid = c.relam WHERE x.indrelid = %s::regclass"
            " AND am.amname = 'btree'",
            [table],
        )
        indexes = [columns for (columns,) in cursor.fetchall()]
        entries = " + ".join(
            f"12 + (pg_column_size(ROW({', '.join(f't.{c}' for c in columns)})) - 24 + 7) / 8 * 8"
            for columns in indexes
        )
        parts.append(
            f"SELECT %s, coalesce(sum(pg_column_size(t.*) + 28 + {entries or 0}), 0)"
            f" FROM {table} t WHERE {where.format(column=MATCH_COLUMN[table])}"
        )
    return " UNION ALL ".join(parts)


def print_moments(moments: dict[str, list[float]]) -> None:
    print(f"  a match's bytes (match_bytes: its rows, their index entries), goal <= {GOAL_KB} KB:")
    for moment, sizes in moments.items():
        worst = max(sizes)
        print(
            f"    {moment:<22} mean {sum(sizes) / len(sizes):5.1f} KB, at most {worst:5.1f} KB"
            f" ({'met' if worst <= GOAL_KB else 'NOT met'})"
        )


def archive_all() -> int:
    """Every finished match's log into its archive row, as games.tasks.archive_events does
    once EVENT_ARCHIVE_AFTER_MINUTES have passed (here: none)."""
    from django.test import override_settings

    from games.log import archive

    with override_settings(EVENT_ARCHIVE_AFTER_MINUTES=0):
        return archive.archive_due(limit=1_000_000)


def compare_compression(stack: Stack) -> None:
    """The archives' zlib against PostgreSQL's own compression of the same JSON (TOAST:
    pglz, and lz4 where the server has it), per finished match."""
    import zlib

    import psycopg

    with psycopg.connect(stack.database_url, autocommit=True) as conn:
        rows = conn.execute("SELECT data FROM games_eventarchive").fetchall()
        raw = [zlib.decompress(data) for (data,) in rows]
        sizes = {"JSON, uncompressed": sum(map(len, raw)), "zlib -9 (stored)": 0}
        sizes["zlib -9 (stored)"] = sum(len(d) for (d,) in rows)
        for method in ("pglz", "lz4"):
            try:
                conn.execute(f"CREATE TEMP TABLE c_{method} (v text COMPRESSION {method})")
            except psycopg.Error as exc:
                print(f"  ({method}: not available here: {str(exc).strip()})")
                continue
            with conn.cursor() as cur:
                cur.executemany(f"INSERT INTO c_{method} VALUES (%s)", [(r.decode(),) for r in raw])
            size = conn.execute(f"SELECT sum(pg_column_size(v)) FROM c_{method}").fetchone()[0]
            sizes[f"PostgreSQL {method} (TOAST) of the JSON"] = size
        print("  the archived logs' bytes a finished match, by compression:")
        for name, size in sizes.items():
            print(f"    {name:<36} {size / max(len(raw), 1) / 1024:7.1f} KB")


def report(stack: Stack, label: str) -> float:
    """Prints the table; returns events + projections, KB a finished match."""
    import psycopg

    with psycopg.connect(stack.database_url, autocommit=True) as conn:
        conn.execute("VACUUM ANALYZE")
        finished = conn.execute("SELECT count(*) FROM games_match WHERE status = 'finished'")
        finished = finished.fetchone()[0]
        print(f"benchmarks/storage.py, {label}: {finished} finished matches of four people,")
        print("  every action with an Idempotency-Key; per finished match (table + its indexes):")
        totals: dict[str, float] = {}
        entries = all_bytes(conn.cursor())
        for table, part in TABLES.items():
            # A row's bytes: its columns (pg_column_size of the row) and its header and line
            # pointer (28 bytes); the indexes' share in proportion to their size on disk.
            rows, heap = conn.execute(
                f"SELECT count(*), coalesce(sum(pg_column_size(t.*) + 28), 0) FROM {table} t"
            ).fetchone()
            pages, index_pages = conn.execute(
                "SELECT pg_table_size(%s), pg_indexes_size(%s)", (table, table)
            ).fetchone()
            size = heap * (1 + index_pages / pages) if pages else 0
            totals[part] = totals.get(part, 0) + size
            on_disk = (pages + index_pages) / finished / 1024
            print(
                f"  {table:<26} {rows / finished:8.1f} rows {size / finished / 1024:8.1f} KB"
                f" (match_bytes {entries[table] / finished / 1024:5.1f} KB;"
                f" on disk with indexes, whole pages: {on_disk:.1f} KB)"
            )
        if conn.execute("SELECT count(*) FROM games_event").fetchone()[0]:
            print_event_types(conn, finished)
        events = totals["events"] + totals["projections"]
        everything = (events + totals["idempotency keys"]) / finished / 1024
        print(
            f"  events + projections: {events / finished / 1024:.1f} KB a match;"
            f" idempotency keys: {totals['idempotency keys'] / finished / 1024:.1f} KB;"
            f" all: {everything:.1f} KB (goal <= {GOAL_KB} KB:"
            f" {'met' if everything <= GOAL_KB else 'NOT met'})"
        )
        return events / finished / 1024


def print_event_types(conn, finished: int) -> None:
    """Bytes per event type: how many a match, the payload's bytes (jsonb) and the row's."""
    print("  events by type, per finished match: rows, payload bytes each, row bytes each:")
    by_type = conn.execute(
        "SELECT type, count(*), avg(pg_column_size(payload)), avg(pg_column_size(t.*) + 28)"
        " FROM games_event t GROUP BY type ORDER BY sum(pg_column_size(t.*)) DESC"
    ).fetchall()
    for type_, rows, payload, row in by_type:
        print(f"    {type_:<16} {rows / finished:6.1f} {payload:7.1f} B {row:7.1f} B")


if __name__ == "__main__":
    sys.exit(main())
