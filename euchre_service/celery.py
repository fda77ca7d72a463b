"""The Celery app. Configured from Django settings (the CELERY_ namespace)."""

import os

from celery import Celery

os.environ.setdefault("DJANGO_SETTINGS_MODULE", "euchre_service.settings")

app = Celery("euchre_service")
app.config_from_object("django.conf:settings", namespace="CELERY")
app.autodiscover_tasks()
