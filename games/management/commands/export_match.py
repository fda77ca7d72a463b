"""manage.py export_match <match_id> [--output FILE]: a match's whole log as JSON."""

import json
from pathlib import Path

from django.core.management.base import BaseCommand, CommandError

from games.log.log_check import export_match_log
from games.models import Match, MatchStatus
from games.play.selectors import is_match_id


class Command(BaseCommand):
    help = (
        "Write a match's whole event log (decks and salts included) as JSON, with a header "
        "giving the match's id, options and first dealer. `verify_log` checks such a file."
    )

    def add_arguments(self, parser):
        parser.add_argument("match_id", help="the match's id (a UUID)")
        parser.add_argument(
            "--output", "-o", metavar="FILE", help="write to FILE instead of standard output"
        )

    def handle(self, *args, **options):
        match_id = options["match_id"]
        match = Match.objects.filter(pk=match_id).first() if is_match_id(match_id) else None
        if match is None:
            raise CommandError(f"No match with id {match_id!r}.")
        document = export_match_log(match)
        if match.status != MatchStatus.FINISHED:
            self.stderr.write(
                self.style.WARNING(
                    f"Match {match.id} is {match.status}: this export holds the deck of the hand "
                    "being played. Keep it from the players until the match is over."
                )
            )
        text = json.dumps(document, indent=2, ensure_ascii=False) + "\n"
        if options["output"]:
            path = Path(options["output"])
            try:
                path.write_text(text, encoding="utf-8")
            except OSError as exc:
                raise CommandError(f"Cannot write {path}: {exc.strerror}.") from exc
            self.stderr.write(f"Wrote {path}: match {match.id}, {len(document['events'])} events.")
        else:
            self.stdout.write(text, ending="")
