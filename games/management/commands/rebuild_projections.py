"""manage.py rebuild_projections [match_id ...] [--all]: hand rows, summaries, people's
records of finished matches and (with --all) the ratings, from the logs."""

import uuid

from django.core.management.base import BaseCommand, CommandError

from games.log import eventlog, projections, records
from games.models import Match
from games.play.selectors import is_match_id


class Command(BaseCommand):
    help = (
        "Rewrite the projections (Hand rows, each Match's status, score, hands played, "
        "winner and finish time, and each person's record of a finished match) from the "
        "event log, for the matches named or --all; --all also wipes the ratings and "
        "derives them again, match by match in finish order."
    )

    def add_arguments(self, parser):
        parser.add_argument("match_ids", nargs="*", metavar="match_id")
        parser.add_argument("--all", action="store_true", help="every match")

    def handle(self, *args, **options):
        ids, every = options["match_ids"], options["all"]
        if bool(ids) == every:
            raise CommandError("Name the matches to rebuild, or give --all (not both).")
        if every:
            matches = Match.objects.order_by("created_at")
        else:
            wanted = {i: uuid.UUID(i) for i in ids if is_match_id(i)}
            found = Match.objects.in_bulk(set(wanted.values()))
            unknown = [i for i in ids if i not in wanted or wanted[i] not in found]
            if unknown:
                raise CommandError(f"No match with id {', '.join(unknown)}; nothing rebuilt.")
            matches = [found[u] for u in dict.fromkeys(wanted.values())]
        count = 0
        for match in matches.iterator() if every else matches:
            projections.rebuild(match)
            match.refresh_from_db()
            count += 1
            log = eventlog.events_of(match)
            last = log[-1].seq if log else 0
            if last != match.seq:
                self.stderr.write(
                    self.style.WARNING(
                        f"match {match.pk}: its seq is {match.seq} but its newest event is "
                        f"{last}; rebuild_projections does not change seq."
                    )
                )
            if options["verbosity"] >= 2:
                self.stdout.write(
                    f"{match.pk}: {match.status}, {match.hands.count()} hands, "
                    f"score {match.score_ns}-{match.score_we}"
                )
        self.stdout.write(f"Rebuilt the projections of {count} match{'es' * (count != 1)}.")
        if every:
            rated = records.rebuild_all()
            self.stdout.write(
                f"Rebuilt the records and ratings of {rated} finished match{'es' * (rated != 1)}."
            )
