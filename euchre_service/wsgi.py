import os

from django.core.wsgi import get_wsgi_application

os.environ.setdefault("DJANGO_SETTINGS_MODULE", "euchre_service.settings")
application = get_wsgi_application()

from euchre_service.heap import freeze_what_start_up_made  # noqa: E402 - needs the settings

# In each gunicorn process once loaded (or in the master before it forks, with preload).
freeze_what_start_up_made()
