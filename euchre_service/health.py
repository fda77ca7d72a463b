"""GET /healthz: can this process reach its database and its broker?"""

from django.conf import settings
from django.db import connection
from django.http import HttpRequest, JsonResponse

from euchre_service.celery import app as celery_app


def _database_ok() -> bool:
    try:
        with connection.cursor() as cursor:
            cursor.execute("SELECT 1")
            return cursor.fetchone() == (1,)
    except Exception:
        return False


def _broker_status() -> str:
    if settings.CELERY_BROKER_URL.startswith("memory://"):
        return "in-process"
    try:
        with celery_app.connection_for_write() as conn:
            conn.ensure_connection(max_retries=1, timeout=2)
        return "ok"
    except Exception:
        return "unreachable"


def healthz(request: HttpRequest) -> JsonResponse:
    database = "ok" if _database_ok() else "unreachable"
    broker = _broker_status()
    healthy = database == "ok" and broker != "unreachable"
    response = JsonResponse(
        {"status": "ok" if healthy else "unhealthy", "database": database, "broker": broker},
        status=200 if healthy else 503,
    )
    if not healthy:
        response["Retry-After"] = "5"
    return response
