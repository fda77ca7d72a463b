"""manage.py verify_log <file>: replay an exported log through the rules engine."""

import json
import sys
from pathlib import Path

from django.core.management.base import BaseCommand, CommandError

from games.log.eventlog import LogError
from games.log.log_check import check_log


class Command(BaseCommand):
    help = (
        "Check a log written by export_match: sequence numbers contiguous from 1, each deck "
        "against its commitment, and every event replayed through the rules engine. Prints "
        "'OK: N events, M hands, final score A-B', or fails with the first bad event's index "
        "(0-based), seq, code and message."
    )

    def add_arguments(self, parser):
        parser.add_argument("file", help="a JSON file from export_match ('-': standard input)")

    def handle(self, *args, **options):
        name = options["file"]
        try:
            if name == "-":
                document = json.load(sys.stdin)
            else:
                with Path(name).open(encoding="utf-8") as f:
                    document = json.load(f)
        except OSError as exc:
            raise CommandError(f"Cannot read {name}: {exc.strerror}.") from exc
        except (json.JSONDecodeError, UnicodeDecodeError) as exc:
            raise CommandError(f"{name} is not JSON: {exc}.") from exc
        try:
            summary = check_log(document)
        except LogError as problem:
            raise CommandError(f"FAILED: {problem}") from problem
        self.stdout.write(str(summary))
