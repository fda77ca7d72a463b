"""Lighthouse on /play/ at a phone's size (390 x 844, Lighthouse's mobile throttling), in
Debian's Chromium: the front page (signed out) and the table (a guest's match against
three computer players, the hand dealt). Prints each page's accessibility, performance
and best-practices scores against the goals of issue 35 (95, 90, 95), its paint and
blocking-time figures, and the audits under 90; exits 1 if a score is under its goal.

    .venv/bin/python benchmarks/lighthouse.py

The service runs as the browser tests run it (tests/web/support.serve: uvicorn, SQLite in
a temporary directory, static files by whitenoise). Lighthouse (npm, pinned in
benchmarks/lighthouse/package.json) is installed there by `npm ci` when it is missing;
benchmarks/lighthouse/run.mjs drives it. Not part of the test suite.
"""

import json
import subprocess
import sys
import tempfile
import urllib.request
from pathlib import Path

ROOT = Path(__file__).resolve().parents[1]
sys.path.insert(0, str(ROOT))

from tests.web.support import CHROMIUM, serve  # noqa: E402

HERE = ROOT / "benchmarks" / "lighthouse"
GOALS = {"accessibility": 95, "performance": 90, "best-practices": 95}


def api(base: str, method: str, path: str, token: str | None = None, body=None) -> dict:
    request = urllib.request.Request(
        f"{base}/api/v1/{path}",
        method=method,
        data=None if body is None else json.dumps(body).encode(),
        headers={"Content-Type": "application/json", "Accept": "application/json"}
        | ({"Authorization": f"Token {token}"} if token else {}),
    )
    with urllib.request.urlopen(request, timeout=30) as response:
        return json.loads(response.read())


def lighthouse(url: str, token: str = "-", username: str = "") -> dict:
    out = subprocess.run(
        ["node", str(HERE / "run.mjs"), url, token, username, CHROMIUM],
        cwd=HERE,
        capture_output=True,
        text=True,
        timeout=600,
        check=True,
    )
    return json.loads(out.stdout.strip().splitlines()[-1])


def main() -> int:
    if not (HERE / "node_modules" / "lighthouse").is_dir():
        subprocess.run(["npm", "ci", "--no-audit", "--no-fund"], cwd=HERE, check=True)
    failed = False
    with tempfile.TemporaryDirectory() as tmp, serve(Path(tmp)) as base:
        guest = api(base, "POST", "auth/guest")
        seats = [{"kind": "me"}] + [{"kind": "computer", "level": "medium"}] * 3
        match = api(base, "POST", "matches", guest["token"], {"seats": seats})
        pages = [
            ("front page (signed out)", lighthouse(f"{base}/play/")),
            (
                "the table (a dealt hand)",
                lighthouse(f"{base}/play/#/match/{match['id']}", guest["token"], guest["username"]),
            ),
        ]
    print(f"{'page':28} " + " ".join(f"{k:>15}" for k in GOALS))
    print(f"{'goal':28} " + " ".join(f"{v:>15}" for v in GOALS.values()))
    for name, result in pages:
        print(f"{name:28} " + " ".join(f"{result[k]:>15}" for k in GOALS))
        failed |= any(result[k] < goal for k, goal in GOALS.items())
    for name, result in pages:
        print(f"\n{name}: {result['url']}")
        print("  " + ", ".join(f"{k} {v}" for k, v in result["metrics"].items()))
        for audit in result["failing"]:
            print(f"  under 90: {audit}")
    return 1 if failed else 0


if __name__ == "__main__":
    sys.exit(main())
