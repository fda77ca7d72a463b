"""What the generated-client tests share: the schema as the code serves it, and a live server."""

import subprocess
from pathlib import Path

from django.core.management import call_command

from tests.bots.worker_support import ROOT

CLIENTS = ROOT / "tests" / "clients"


def schema_file(directory: Path) -> Path:
    """The OpenAPI schema the service serves (drf-spectacular), written to `directory`."""
    path = directory / "openapi.yaml"
    call_command("spectacular", file=str(path), validate=True, fail_on_warn=False)
    return path


def run(
    command: list[str], cwd: Path, timeout: float, check: bool = True, **env: str
) -> subprocess.CompletedProcess[str]:
    """Runs a command; its whole output in the assertion when it fails (`check`: when it
    exits other than 0; a linter does when it finds something, which the caller reads)."""
    done = subprocess.run(
        command, cwd=cwd, capture_output=True, text=True, timeout=timeout, env=env or None
    )
    said = f"{done.stdout[-4000:]}\n{done.stderr[-4000:]}"
    assert done.returncode == 0 or not check, f"{' '.join(command)}:\n{said}"
    return done
