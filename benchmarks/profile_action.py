"""Where an action POST's CPU goes, in one process: CPU time per request and cProfile.

    .venv/bin/python benchmarks/profile_action.py       # 400 moves timed, 400 profiled
    .venv/bin/python benchmarks/profile_action.py --moves 1000 --top 30

Makes a fresh database (euchre_bench_profile, dropped at the end) and starts a Redis
server of its own, with the benchmark's settings (benchmarks/bench_settings.py:
production settings, throttles raised, CELERY_TASK_ALWAYS_EAGER=1). In this process,
through Django's test client (the whole middleware and DRF stack, no HTTP socket), with
CPU time (time.process_time) throughout, so waiting on PostgreSQL is not counted:

  1. four people at a match, every move a GET of the view and a POST of the first legal
     action with expected_seq, as benchmarks/api.py --bots none does: --moves moves
     timed, CPU per POST and per GET, the same for the ceiling's POST and GET
     /bench/ping made after each timed move, each request with the garbage collector's
     pass over what it left; then --moves more under cProfile (the POSTs and the GETs
     apart), printing the functions with the most CPU of their own and the most
     cumulative CPU;
  2. one person against three Medium computer players, their turns run in this process
     (eager): prints the CPU of one computer move (the task: load, choose, submit,
     commit), measured around each task call.
"""

import argparse
import cProfile
import gc
import io
import os
import pstats
import sys
import time
from typing import Any

sys.path.insert(0, os.path.dirname(os.path.dirname(os.path.abspath(__file__))))

from benchmarks._server import Stack, add_stack_arguments, local_seats, ms  # noqa: E402

PEOPLE = [{"kind": "me"}, {"kind": "open"}, {"kind": "open"}, {"kind": "open"}]
MEDIUM = [{"kind": "me"}, *[{"kind": "computer", "level": "medium"}] * 3]


def main() -> int:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--moves", type=int, default=400, help="person moves profiled (400)")
    parser.add_argument("--computer-posts", type=int, default=60, help="eager POSTs (60)")
    parser.add_argument("--top", type=int, default=25, help="profile lines (25)")
    parser.add_argument(
        "--dump", help="also write the action POSTs' profile here, the views' to DUMP.view"
    )
    add_stack_arguments(parser, database="euchre_bench_profile", keep_database=False)
    args = parser.parse_args()
    stack = Stack.from_args(args, "euchre-profile-", eager=True)
    with stack:
        stack.django_here()
        run(args)
    return 0


def run(args: argparse.Namespace) -> None:
    call = local_seats("profile")

    def new_match(seats: list[dict]) -> str:
        match_id = call("POST", "/api/v1/matches", {"seats": seats}).json()["id"]
        if seats is PEOPLE:
            for other in (1, 2, 3):
                call("POST", f"/api/v1/matches/{match_id}/join", {"seat": other}, seat=other)
        return match_id

    # CPU time, not wall time: waiting on PostgreSQL is not where the CPU goes. The first
    # half of the moves is timed without the profiler (it slows everything), the second
    # half profiled.
    profile = cProfile.Profile(time.process_time)
    view_profile = cProfile.Profile(time.process_time)  # the GETs of the same moves
    cpu = {"POST action": [], "GET view": [], "POST ping": [], "GET ping": []}
    collector = dict.fromkeys(cpu, 0.0)

    def timed(kind: str, request: Any) -> Any:
        """`request()` timed, with the garbage collector's pass over what it left (the
        collector is off meanwhile): each request is charged its own garbage. With the
        collector on, its passes fall on whichever request crosses its threshold, and
        with the two loops taken in turn they fell on one loop's more than the other's."""
        t = time.process_time()
        answer = request()
        between = time.process_time()
        gc.collect(1)
        done = time.process_time()
        cpu[kind].append(done - t)
        collector[kind] += done - between
        return answer

    match_id, seat, done = None, 0, 0
    gc.collect()
    gc.disable()
    while done < 2 * args.moves:
        if match_id is None:
            match_id, seat = new_match(PEOPLE), 0
        path = f"/api/v1/matches/{match_id}"
        if done >= args.moves:
            view_profile.enable()
            view = call("GET", path, seat=seat)
            view_profile.disable()
        else:
            view = timed("GET view", lambda: call("GET", path, seat=seat))  # noqa: B023
        view = view.json()
        if view["status"] == "finished":
            match_id = None
            continue
        legal = view["view"]["legal_actions"]
        if not legal:
            seat = view["view"]["turn"]
            continue
        body = {**legal[0], "expected_seq": view["seq"]}
        profiled = done >= args.moves
        post = lambda: call("POST", f"{path}/actions", body, seat=seat)  # noqa: B023, E731
        if profiled:
            profile.enable()
            answer = post()
            profile.disable()
        else:
            answer = timed("POST action", post)
        assert answer.status_code == 200, answer.content
        turn = answer.json()["view"]["turn"]
        seat = turn if turn is not None else seat
        if not profiled:
            # The ceiling's GET and POST right after each timed move, so that a drift in
            # the machine's speed (this VM's moved by half within a minute) weighs on
            # both alike.
            timed("GET ping", lambda: call("GET", "/bench/ping"))
            timed("POST ping", lambda: call("POST", "/bench/ping", {"note": f"n{done}"}))  # noqa: B023
        else:
            gc.collect(1)  # as timed() does
        done += 1
    gc.enable()

    print(f"CPU per request in this process (time.process_time, mean over {args.moves}):")
    for name, values in cpu.items():
        mean = sum(values) / len(values) * 1000
        swept = collector[name] / len(values) * 1000
        print(
            f"  {name:<12} {mean:6.2f} ms  (p50 {ms(values, 50):.2f} ms; of the mean, the"
            f" collector's pass over what it left {swept:.2f} ms)"
        )
    action = sum(cpu["POST action"]) / len(cpu["POST action"])
    ping = sum(cpu["POST ping"]) / len(cpu["POST ping"])
    print(f"  action POST / ceiling POST: {action / ping:.2f}")
    loop = (sum(cpu["POST action"]) + sum(cpu["GET view"])) / len(cpu["POST action"])
    ceiling = (sum(cpu["POST ping"]) + sum(cpu["GET ping"])) / len(cpu["POST ping"])
    print(
        f"  a move's loop (GET + POST) / the ceiling's: {loop * 1000:.2f} / {ceiling * 1000:.2f}"
        f" ms = {loop / ceiling:.2f}  (goal <= 1.3)"
    )
    if args.dump:
        profile.dump_stats(args.dump)
        view_profile.dump_stats(f"{args.dump}.view")
    for name, profiled in (("action POSTs", profile), ("view GETs", view_profile)):
        for order in ("tottime", "cumulative"):
            out = io.StringIO()
            stats = pstats.Stats(profiled, stream=out)
            stats.strip_dirs().sort_stats(order).print_stats(args.top)
            print(f"\nprofile of the {name}, by {order}:")
            print("\n".join(out.getvalue().splitlines()[4:]))

    computer_moves(args, call, new_match)


def computer_moves(args, call, new_match) -> None:
    """CPU of each computer move played in this process (eager), around the task."""
    from bots import tasks

    spent: list[float] = []
    original = tasks.play_computer_turn.run

    def timed(*a, **k):
        t = time.process_time()
        try:
            return original(*a, **k)
        finally:
            spent.append(time.process_time() - t)

    tasks.play_computer_turn.run = timed
    try:
        match_id, posts = None, 0
        while posts < args.computer_posts:
            if match_id is None:
                match_id = new_match(MEDIUM)
            view = call("GET", f"/api/v1/matches/{match_id}").json()
            if view["status"] == "finished":
                match_id = None
                continue
            legal = view["view"]["legal_actions"]
            body = {**legal[0], "expected_seq": view["seq"]}
            assert call("POST", f"/api/v1/matches/{match_id}/actions", body).status_code == 200
            posts += 1
    finally:
        tasks.play_computer_turn.run = original
    print(
        f"\ncomputer players (Medium, eager, in this process): {len(spent)} moves, CPU per move"
        f" mean {sum(spent) / len(spent) * 1000:.2f} ms, p50 {ms(spent, 50):.2f}"
        f" ms, p95 {ms(spent, 95):.2f} ms  (goal <= 2 ms)"
    )


if __name__ == "__main__":
    sys.exit(main())
