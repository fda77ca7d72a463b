"""Issue 33: whatever ends a long-running process (an unrecoverable broker error, a crash,
the OOM killer), what runs it starts it again, in every shape the service ships: the
compose file, and the systemd units for running without Docker (deploy/systemd/)."""

import configparser
import shlex
from pathlib import Path

from tests.service.test_deploy_files import LONG_RUNNING, ROOT, command, services

UNITS = ROOT / "deploy" / "systemd"
# Each Celery process's unit, and the compose service that runs the same command.
CELERY_UNITS = {
    "euchre-worker.service": "worker",
    "euchre-review-worker.service": "review-worker",
    "euchre-beat.service": "beat",
}
# Paths of the process's own that differ by design between the container and a host.
HOST_PATHS = ("--schedule", "--pidfile")


def unit(path: Path) -> configparser.ConfigParser:
    parser = configparser.ConfigParser(interpolation=None, strict=False)
    parser.optionxform = str  # systemd's keys are case-sensitive
    parser.read(path)
    return parser


def without_host_paths(argv: list[str]) -> list[str]:
    return [a for i, a in enumerate(argv) if a not in HOST_PATHS and argv[i - 1] not in HOST_PATHS]


def test_compose_starts_every_long_running_service_again_whatever_ended_it():
    found = services()
    for name in LONG_RUNNING:
        assert found[name].get("restart") in ("unless-stopped", "always"), name


def test_the_systemd_units_start_the_celery_processes_again_whatever_ended_them():
    assert {p.name for p in UNITS.glob("*.service")} == set(CELERY_UNITS)
    for name in CELERY_UNITS:
        service = unit(UNITS / name)["Service"]
        assert service["Restart"] == "always", name
        assert float(service["RestartSec"]) <= 5, name
        assert service["Environment"] == "DJANGO_SETTINGS_MODULE=euchre_service.settings_production"


def test_the_systemd_units_run_the_commands_compose_runs():
    found = services()
    for name, compose_name in CELERY_UNITS.items():
        service = unit(UNITS / name)["Service"]
        # systemd writes a literal % as %% (%h alone would be the user's home).
        argv = shlex.split(service["ExecStart"].replace("%%", "%"))
        assert argv[0].endswith("/celery"), name
        composed = command(found[compose_name])
        if composed[:3] == ["nice", "-n", "10"]:  # the review worker's lower priority
            assert service["Nice"] == "10"
            composed = composed[3:]
        assert without_host_paths(["celery", *argv[1:]]) == without_host_paths(composed), name
