"""PostgreSQL bytes per finished match: events, projections and idempotent responses.

    .venv/bin/python benchmarks/storage.py                # 8 matches, four people each
    .venv/bin/python benchmarks/storage.py --matches 20

Makes a fresh database (euchre_bench_storage, dropped at the end; Redis databases 10
and 11), with the benchmark's settings, and plays --matches whole matches in this
process through Django's test client: four people a match, every action a POST with its
own Idempotency-Key (as a careful client retries), first legal action. Then prints, per
finished match, the rows and the bytes each table takes with its indexes
(pg_total_relation_size after VACUUM, so dead rows are not counted), the events and the
projections together (the goal: at most 50 KB), and the idempotent responses. A row
counts its columns and header, plus its share of the indexes; the size on disk in whole
pages is printed beside it (it over-counts a short run: every table and index has a
first page or few however few rows it holds).
"""

import argparse
import os
import sys
import uuid

sys.path.insert(0, os.path.dirname(os.path.dirname(os.path.abspath(__file__))))

from benchmarks._server import Stack, add_stack_arguments, local_seats  # noqa: E402

PEOPLE = [{"kind": "me"}, {"kind": "open"}, {"kind": "open"}, {"kind": "open"}]
TABLES = {
    "games_event": "events",
    "games_eventarchive": "events",
    "games_hand": "projections",
    "games_match": "projections",
    "games_seat": "projections",
    "games_idempotentresponse": "idempotent responses",
}


def main() -> int:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--matches", type=int, default=8)
    add_stack_arguments(
        parser, database="euchre_bench_storage", broker_db=10, cache_db=11, keep_database=False
    )
    args = parser.parse_args()
    stack = Stack.from_args(args, "euchre-storage-", eager=True)
    try:
        stack.prepare()
        stack.django_here()
        play(args.matches)
        from django.db import connections  # Django is set up by now

        connections.close_all()
        before = report(stack, "before archiving: the live rows")
        archived = archive_all()
        connections.close_all()
        after = report(stack, f"after archiving ({archived} logs, games.archive)")
        compare_compression(stack)
        print(
            f"  events + projections a finished match: {before:.1f} KB before, {after:.1f} KB after"
        )
    finally:
        stack.clean_up()
    return 0


def play(matches: int) -> None:
    call = local_seats("storage")
    for _ in range(matches):
        match_id = call("POST", "/api/v1/matches", {"seats": PEOPLE}).json()["id"]
        for other in (1, 2, 3):
            call("POST", f"/api/v1/matches/{match_id}/join", {"seat": other}, seat=other)
        seat = 0
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


def archive_all() -> int:
    """Every finished match's log into its archive row, as games.tasks.archive_events does
    once EVENT_ARCHIVE_AFTER_MINUTES have passed (here: none)."""
    from django.test import override_settings

    from games import archive

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
                f"  (on disk with indexes, whole pages: {on_disk:.1f} KB)"
            )
        if conn.execute("SELECT count(*) FROM games_event").fetchone()[0]:
            print_event_types(conn, finished)
        events = totals["events"] + totals["projections"]
        print(
            f"  events + projections: {events / finished / 1024:.1f} KB a match"
            f" (goal <= 50 KB: {'met' if events / finished <= 50 * 1024 else 'NOT met'});"
            f" idempotent responses: {totals['idempotent responses'] / finished / 1024:.1f} KB"
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
