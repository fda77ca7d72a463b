"""The schemathesis hooks themselves: what they change in the fuzzer's own process."""

import subprocess
import sys
import textwrap
from pathlib import Path

ROOT = Path(__file__).resolve().parents[2]

# A garbage collection during one parse's tree building runs a finalizer, which lets a
# second thread parse in the middle of it: on CPython 3.11 the first parse then fails
# with SystemError (python/cpython#106905) unless the hooks make parses take turns.
PARSE_DURING_PARSE = textwrap.dedent(
    """
    import ast, gc, threading, time
    import tests.hostile.st_hooks  # noqa: F401

    others = []

    class Finalizer:
        def __del__(self):
            other = threading.Thread(target=ast.parse, args=("x = [1, (2, 3)]",))
            others.append(other)
            other.start()
            time.sleep(0.05)  # the other thread runs now, unless it waits its turn

    source = "\\n".join(f"def f{i}(a):\\n    return [a, (a, {i})]" for i in range(200))
    failures = []
    for threshold in (5, 50, 500):  # the collection falls at different points of the tree
        gc.collect()
        gc.disable()
        finalizer = Finalizer()
        finalizer.cycle = finalizer
        del finalizer
        gc.set_threshold(threshold)
        gc.enable()
        try:
            ast.parse(source)
        except SystemError as error:
            failures.append(str(error))
        gc.set_threshold(700)
    for other in others:
        other.join()
    print(len(others), failures)
    """
)


def test_hooks_make_the_fuzzers_threads_parse_python_one_at_a_time():
    done = subprocess.run(
        [sys.executable, "-c", PARSE_DURING_PARSE],
        cwd=ROOT, capture_output=True, text=True, timeout=60,
    )  # fmt: skip
    assert done.returncode == 0, done.stderr
    # Three parses met another thread's parse halfway, and none of them failed.
    assert done.stdout.split(maxsplit=1) == ["3", "[]\n"], done.stdout
