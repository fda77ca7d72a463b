"""The player's own feed (GET /api/v1/me/stream, Server-Sent Events) under one uvicorn
process with the production settings: how many per-user feeds it holds (threads, memory),
and the delay from an action's commit to the `your_turn` on the right person's feed.

    .venv/bin/python benchmarks/feed.py                          # up to 2000 feeds, 200 actions
    .venv/bin/python benchmarks/feed.py --max-feeds 4000 --actions 400
    .venv/bin/python benchmarks/feed.py --max-feeds 40 --actions 20          # quick

What it does, all on 127.0.0.1, and stops by itself:
  1. a fresh PostgreSQL database (--database-url, default euchre_bench_feed; dropped at the
     end unless --keep-database), migrated; a Redis server of its own on a spare port
     (--redis-url: that one's --broker-db and --cache-db, emptied; the cache is REDIS_URL,
     the pub/sub the feeds hear commits through);
  2. one uvicorn process (--workers 1) on euchre_service.settings_production, throttles
     raised, STREAM_KEEPALIVE_SECONDS=--keepalive; matches of four people and no computer
     player, so no Celery worker is needed;
  3. --max-feeds users (made in the database, one token each), in fours at one match each
     (the first creates it through the API, three join: the match starts, seat 0 to bid);
  4. phase 1, capacity: opens one feed per user, in steps (250, 500, 1000, ... up to
     --max-feeds), each established once its `: live` comment arrived (the backlog sent,
     subscribed); at each step prints the feeds open, failures, the server's threads and
     RSS (and KiB per feed), PostgreSQL connections, and whether every feed got a keep-alive
     within the interval + 1 s;
  5. phase 2, delay (every feed still open): the people of --matches-played matches play
     through REST (the seat to act POSTs its first legal action with expected_seq), one
     action at a time, --actions in all. For each it takes t_send (before the POST is
     written) and t_resp (its answer read), and the answer's `view.turn`: the seat whose
     turn it now is. That person's feed must get `your_turn` for the answer's seq; the
     arrival - t_send is an upper bound of commit-to-feed, arrival - t_resp a lower one (the
     commit happens in between). A `your_turn` on any other feed for that seq is counted as
     misdelivered. Computer-free matches: every turn is a person's.
Clients are this process (asyncio, raw HTTP/1.1, benchmarks/stream.py's); the server's CPU
is left to the server.
"""

import argparse
import asyncio
import json
import os
import platform
import sys
import time
from collections import Counter

sys.path.insert(0, os.path.dirname(os.path.dirname(os.path.abspath(__file__))))

from benchmarks._server import (  # noqa: E402
    Stack,
    add_stack_arguments,
    ms,
    raise_open_files_limit,
    rss_kib,
    stream_server_env,
)
from benchmarks.stream import (  # noqa: E402
    HOST,
    Http,
    HttpError,
    Stream,
    read_head,
    request_bytes,
    server_threads,
)

SLACK = 1.0


class Feed(Stream):
    """One person's feed: records when each `your_turn` (match, seq) arrives."""

    def __init__(self, user: int, arrivals: dict) -> None:
        super().__init__(None)
        self.user, self.arrivals_of = user, arrivals  # (match, seq) -> [(user, time)]
        self.live = False

    async def open_feed(self, port: int, token: str) -> None:
        self.reader, self.writer = await asyncio.open_connection(HOST, port, limit=1 << 20)
        self.writer.write(request_bytes("GET", "/api/v1/me/stream", token))
        status, headers = await read_head(self.reader)
        if status != 200:
            raise HttpError(f"HTTP {status}")
        while not self.live:
            if not await self._read():
                raise HttpError("ended before `: live`")
        self.task = asyncio.create_task(self._run())

    def _messages(self, now: float, wall: float) -> None:
        for message in self._whole_messages():
            if message.startswith(b": live"):
                self.live = True
            elif message.startswith(b":"):
                self._keepalive(now)
            elif b"event: your_turn" in message:
                data = json.loads(message[message.index(b"data: ") + 6 :])
                self.arrivals_of.setdefault((data["match"], data["seq"]), []).append(
                    (self.user, now)
                )


async def setup_matches(port: int, tokens: list[str]) -> list[tuple[str, list[int]]]:
    """Users in fours at one match each: (match id, the four users' indexes by seat)."""
    gate = asyncio.Semaphore(4)  # the shared PostgreSQL has a connection limit

    async def call(token: str, path: str, body: dict, expected: int) -> dict:
        for attempt in range(10):  # a 503 (the database busy): wait and send again
            client = Http(port, token)
            status, answer = await client.call("POST", path, body)
            client.close()
            if status == expected:
                return answer
            if status != 503:
                break
            await asyncio.sleep(0.5 * (attempt + 1))
        raise AssertionError(f"{path}: {status} {answer}")

    async def one(first: int) -> tuple[str, list[int]]:
        async with gate:
            body = {"seats": [{"kind": "me"}] + [{"kind": "open"}] * 3}
            made = await call(tokens[first], "/api/v1/matches", body, 201)
            for seat in (1, 2, 3):
                path = f"/api/v1/matches/{made['id']}/join"
                await call(tokens[first + seat], path, {"seat": seat}, 200)
            return made["id"], [first + s for s in range(4)]

    return await asyncio.gather(*[one(i) for i in range(0, len(tokens) - 3, 4)])


async def run(args: argparse.Namespace, stack: Stack, pid: int) -> dict:
    port = stack.stream_port
    tokens = stack.make_users(args.max_feeds - args.max_feeds % 4)
    start = time.perf_counter()
    matches = await setup_matches(port, tokens)
    print(f"  {len(matches)} matches of four people set up in {time.perf_counter() - start:.1f} s")
    threads0, rss0 = server_threads(pid), rss_kib(pid)
    print(f"  before any feed: server threads {threads0}, RSS {rss0 / 1024:.1f} MiB")
    print()
    print("phase 1, capacity: feeds open at once")
    print(
        f"  {'feeds':>6} {'failed':>6} {'open s':>7} {'threads':>7} {'RSS MiB':>8} "
        f"{'KiB/feed':>8} {'pg conn':>7} {'keep-alive':>10}"
    )
    arrivals: dict = {}
    feeds: list[Feed] = []
    failures: Counter = Counter()
    step, rows = min(250, len(tokens)), []
    gate = asyncio.Semaphore(args.connect_concurrency)

    async def open_one(user: int) -> Feed | None:
        feed = Feed(user, arrivals)
        try:
            async with gate:
                await asyncio.wait_for(feed.open_feed(port, tokens[user]), 30)
            return feed
        except (HttpError, TimeoutError, OSError, asyncio.IncompleteReadError) as exc:
            failures[type(exc).__name__ + (f" {exc}" if isinstance(exc, HttpError) else "")] += 1
            feed.close()
            return None

    while len(feeds) < len(tokens):
        target = min(step, len(tokens))
        began = time.perf_counter()
        opened = await asyncio.gather(*[open_one(u) for u in range(len(feeds), target)])
        seconds = time.perf_counter() - began
        feeds += [f for f in opened if f is not None]
        if len(feeds) < target:
            break
        window = time.perf_counter()
        for feed in feeds:
            feed.watch_from(window)
        await asyncio.sleep(args.keepalive + SLACK)
        kept = sum(1 for f in feeds if f.first_in_window and not f.ended)
        threads, rss = server_threads(pid), rss_kib(pid)
        pg = stack.query(
            "SELECT count(*) FROM pg_stat_activity WHERE datname = current_database()"
        )[0][0]
        per = (rss - rss0) / len(feeds)
        print(
            f"  {len(feeds):6d} {sum(failures.values()):6d} {seconds:7.1f} {threads:7d}"
            f" {rss / 1024:8.1f} {per:8.1f} {pg:7d} {kept:6d}/{len(feeds)}"
        )
        rows.append((len(feeds), threads, rss, per, kept))
        if failures or kept < len(feeds):
            break
        step *= 2
    if failures:
        print(f"  failures: {dict(failures)}")

    print()
    played = matches[: args.matches_played]
    print(
        f"phase 2, delay: {len(played)} matches played through REST, one action at a time,"
        f" {len(feeds)} feeds open; commit -> `your_turn` on the feed of the seat to act"
    )
    upper, lower, posts, missing, wrong = [], [], [], 0, 0
    http = {u: Http(port, tokens[u]) for _m, users in played for u in users}
    turn = {m: 0 for m, _u in played}  # seat 0 bids first (the first dealer is east)
    done = 0
    while done < args.actions:
        for match_id, users in played:
            if done >= args.actions:
                break
            client = http[users[turn[match_id]]]
            status, view = await client.call("GET", f"/api/v1/matches/{match_id}")
            if view.get("status") != "active":
                continue
            legal = view["view"]["legal_actions"]
            if not legal:
                turn[match_id] = view["view"]["turn"] or 0
                continue
            action = {**legal[0], "expected_seq": view["seq"]}
            status, answer = await client.call(
                "POST", f"/api/v1/matches/{match_id}/actions", action
            )
            t_send, t_resp = client.t_send, time.perf_counter()
            if status != 200:
                continue
            posts.append(t_resp - t_send)
            nxt = answer["view"]["turn"]
            if nxt is None or answer["status"] != "active":
                continue
            turn[match_id] = nxt
            key, person = (match_id, answer["seq"]), users[nxt]

            def arrival(key=key, person=person) -> float | None:
                return next((t for u, t in arrivals.get(key, ()) if u == person), None)

            deadline = time.perf_counter() + 10
            while arrival() is None and time.perf_counter() < deadline:
                await asyncio.sleep(0.0005)
            arrived = arrival()
            await asyncio.sleep(0.002)  # a misdelivery would come about as soon
            wrong += sum(1 for u, _t in arrivals.get(key, ()) if u != person)
            done += 1
            if arrived is None:
                missing += 1
                continue
            upper.append(arrived - t_send)
            lower.append(arrived - t_resp)
    for client in http.values():
        client.close()
    for feed in feeds:
        feed.close()
    await asyncio.sleep(0.5)
    return {
        "rows": rows,
        "threads0": threads0,
        "upper": upper,
        "lower": lower,
        "posts": posts,
        "missing": missing,
        "wrong": wrong,
        "failures": failures,
    }


def main() -> int:
    parser = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    parser.add_argument("--max-feeds", type=int, default=2000)
    parser.add_argument("--actions", type=int, default=200)
    parser.add_argument("--matches-played", type=int, default=4)
    parser.add_argument("--keepalive", type=float, default=5)
    parser.add_argument("--connect-concurrency", type=int, default=64)
    add_stack_arguments(parser, database="euchre_bench_feed", port=True)
    args = parser.parse_args()
    if not 8 <= args.max_feeds <= 50_000 or not 1 <= args.actions <= 100_000:
        parser.error("--max-feeds: 8 to 50000; --actions: 1 to 100000")
    files = raise_open_files_limit(args.max_feeds + 1024)
    stack = Stack.from_args(args, "euchre-bench-feed-", extra_env=stream_server_env(args.keepalive))
    log_dir = stack.log_dir
    print(
        "benchmarks/feed.py: per-user feeds (GET /api/v1/me/stream) under one uvicorn process:"
        " feeds held, and commit -> your_turn delay"
    )
    print(
        f"  server: uvicorn --workers 1, settings_production, STREAM_KEEPALIVE_SECONDS="
        f"{args.keepalive:g}; {os.cpu_count()} cores, Python {platform.python_version()};"
        f" client open-files limit {files}; logs in {log_dir}"
    )
    with stack:
        proc = stack.start_uvicorn(open_files=2 * (args.max_feeds + 1024))
        result = asyncio.run(run(args, stack, proc.pid))
    upper, lower = result["upper"], result["lower"]
    print(
        f"  actions measured: {len(upper)}; your_turn missing (10 s): {result['missing']};"
        f" on the wrong feed: {result['wrong']}"
    )
    print(f"  {'commit -> your_turn, ms':<44} {'p50':>8} {'p95':>8} {'p99':>8} {'max':>8}")
    for label, values in (("upper bound (arrival - request sent)", upper),
                          ("lower bound (arrival - answer read)", lower),
                          ("baseline: the action POST itself", result["posts"])):  # fmt: skip
        top = max(values) * 1000 if values else float("nan")
        print(
            f"  {label:<44} {ms(values, 50):8.1f} {ms(values, 95):8.1f} {ms(values, 99):8.1f}"
            f" {top:8.1f}"
        )
    print()
    rows = result["rows"]
    if rows:
        feeds, threads, rss, per, _kept = rows[-1]
        print(
            f"feeds held by one process: {feeds} (threads {result['threads0']} before any, "
            f"{threads} with them; RSS {rss / 1024:.0f} MiB, {per:.1f} KiB a feed)"
        )
    print(
        f"commit -> the right person's your_turn: p50 {ms(lower, 50):.1f}..{ms(upper, 50):.1f}"
        f" ms, p95 {ms(lower, 95):.1f}..{ms(upper, 95):.1f} ms,"
        f" p99 {ms(lower, 99):.1f}..{ms(upper, 99):.1f} ms"
    )
    bad = result["missing"] or result["wrong"] or result["failures"]
    return 1 if bad else 0


if __name__ == "__main__":
    sys.exit(main())
