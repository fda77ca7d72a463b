"""A URL configuration for tests only: the service's URLs and error handlers, plus views
that fail on purpose (an unexpected exception; a view that is not CSRF-exempt) under
/api/, so the error answers can be checked for any view, not just today's."""

from django.http import HttpRequest, HttpResponse
from django.urls import path
from rest_framework.permissions import AllowAny
from rest_framework.views import APIView

from euchre_service import urls as service

# The service's handlers (Django's defaults where it names none).
handler400 = getattr(service, "handler400", "django.views.defaults.bad_request")
handler403 = getattr(service, "handler403", "django.views.defaults.permission_denied")
handler404 = getattr(service, "handler404", "django.views.defaults.page_not_found")
handler500 = getattr(service, "handler500", "django.views.defaults.server_error")


class Boom(RuntimeError):
    pass


class FailingApi(APIView):
    permission_classes = [AllowAny]
    authentication_classes: list = []

    def get(self, request):
        raise Boom("a bug in a DRF view")


def failing_view(request: HttpRequest) -> HttpResponse:
    raise Boom("a bug in a plain view")


def cookie_form(request: HttpRequest) -> HttpResponse:
    return HttpResponse("ok")  # not CSRF-exempt: a POST without the token is refused


urlpatterns = [
    *service.urlpatterns,
    path("api/v1/test-failing-drf", FailingApi.as_view()),
    path("api/v1/test-failing-plain", failing_view),
    path("api/v1/test-cookie-form", cookie_form),
    path("test-failing-page", failing_view),
]
