"""The service's URLs plus the benchmark's ceiling endpoint, /bench/ping.

GET  /bench/ping   the caller's newest row (a read, as GET of a match view is)
POST /bench/ping   {"note": "..."} inserts one row: authenticated by token,
                   throttled in the same scope as actions, strict JSON input.
"""

from django.urls import path
from rest_framework import serializers
from rest_framework.request import Request
from rest_framework.response import Response
from rest_framework.views import APIView

from benchmarks.ceiling.models import Ping
from euchre_service.urls import urlpatterns as service_urlpatterns
from games.http.api_support import StrictSerializer
from games.http.throttling import WritesThrottle


class PingApi(APIView):
    throttle_classes = [WritesThrottle]  # like the service's: reads are not throttled
    throttle_scope = "actions"

    class InputSerializer(StrictSerializer):
        note = serializers.CharField(max_length=64)

    def get(self, request: Request) -> Response:
        last = Ping.objects.filter(user=request.user).order_by("-id").values("id", "note").first()
        return Response({"last": last})

    def post(self, request: Request) -> Response:
        serializer = self.InputSerializer(data=request.data)
        serializer.is_valid(raise_exception=True)
        ping = Ping.objects.create(user=request.user, note=serializer.validated_data["note"])
        return Response({"id": ping.pk, "note": ping.note}, status=201)


urlpatterns = [*service_urlpatterns, path("bench/ping", PingApi.as_view(), name="bench-ping")]
