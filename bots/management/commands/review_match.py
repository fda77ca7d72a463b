"""manage.py review_match [MATCH_ID ...] [--all] [--queue]: (re)build match reviews."""

from django.core.management.base import BaseCommand, CommandError

from bots.review import VERSION
from bots.services import review_build
from games.models import Match, MatchReview, MatchStatus
from games.play import later


class Command(BaseCommand):
    help = (
        "Rebuild the review of finished matches (bots/review.py), here and now, replacing the "
        "stored one; or, with --queue, send each to the review queue. --all: every finished "
        "match; --missing: those with no review built by the current method."
    )

    def add_arguments(self, parser):
        parser.add_argument("match_ids", nargs="*", help="matches to review")
        parser.add_argument("--all", action="store_true", help="every finished match")
        parser.add_argument(
            "--missing", action="store_true", help="finished matches with no current review"
        )
        parser.add_argument(
            "--queue", action="store_true", help="queue the task instead of building here"
        )

    def handle(self, *args, match_ids, all, missing, queue, **options):
        finished = Match.objects.filter(status=MatchStatus.FINISHED)
        if all or missing:
            ids = list(finished.values_list("pk", flat=True))
        else:
            ids = match_ids
        if not ids and not (all or missing):
            raise CommandError("name the matches to review, or --all / --missing")
        if missing:
            current = MatchReview.objects.filter(status="ready", version=VERSION)
            done = set(current.values_list("match_id", flat=True))
            ids = [pk for pk in ids if pk not in done]
        for pk in ids:
            if not finished.filter(pk=pk).exists():
                raise CommandError(f"no finished match {pk}")
            if queue:
                sent = later.run_in_background(later.REVIEW_MATCH, str(pk))
                self.stdout.write(f"{pk}: {'queued' if sent else 'NOT queued'}")
                continue
            built = review_build(match_id=pk, force=not missing)
            review = MatchReview.objects.filter(match_id=pk).first()
            status = review.status if review else "none"
            seconds = f" in {review.seconds:.2f} s" if built and review.seconds else ""
            self.stdout.write(f"{pk}: {status}{seconds}")
