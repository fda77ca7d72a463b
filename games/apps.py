from django.apps import AppConfig


class GamesConfig(AppConfig):
    name = "games"
    default_auto_field = "django.db.models.BigAutoField"

    def ready(self) -> None:
        # Register the game's own tasks (turn timers, the sweep) with Celery as soon as the
        # apps are loaded, in every process.
        from games import tasks  # noqa: F401
