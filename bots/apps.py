from django.apps import AppConfig


class BotsConfig(AppConfig):
    name = "bots"
    default_auto_field = "django.db.models.BigAutoField"

    def ready(self) -> None:
        # Register the computer players' and hints' tasks with Celery as soon as the apps
        # are loaded, in every process (games asks for them by name only).
        from bots import tasks  # noqa: F401
