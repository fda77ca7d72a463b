from django.apps import AppConfig
from django.db.backends.signals import connection_created

from games.log import server  # Django's database layer only: safe before the apps load


class GamesConfig(AppConfig):
    name = "games"
    default_auto_field = "django.db.models.BigAutoField"

    def ready(self) -> None:
        # Register the game's own tasks (turn timers, the sweep) with Celery as soon as the
        # apps are loaded, in every process.
        from games import tasks  # noqa: F401

        # Every new database connection: has the process reached another server (a
        # failover)? Then its copies of matches are dropped (games/log/server.py).
        connection_created.connect(server.connected, dispatch_uid="games.log.server")
