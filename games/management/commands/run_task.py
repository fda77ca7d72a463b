"""manage.py run_task NAME [ARG ...]: run one registered task here and now.

In-process mode (no workers, the embedded default) runs background work, a match's
review, this way in a process of its own at a lower CPU priority (games.play.later
run_in_background), so it neither holds the server's GIL nor delays anyone's play.
"""

from django.core.management.base import BaseCommand, CommandError

from games.play import later


class Command(BaseCommand):
    help = "Run one registered Celery task in this process (its arguments are strings)."

    def add_arguments(self, parser):
        parser.add_argument("name", help=f"one of {', '.join(later.TASK_NAMES)}")
        parser.add_argument("task_args", nargs="*", metavar="ARG")

    def handle(self, *args, name, **options):
        if name not in later.TASK_NAMES:
            raise CommandError(f"no task {name!r}")
        later.run_here_now(name, tuple(options["task_args"]))
