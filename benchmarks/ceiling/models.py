from django.conf import settings
from django.db import models


class Ping(models.Model):
    """One row per POST /bench/ping: the least a write endpoint can do."""

    user = models.ForeignKey(settings.AUTH_USER_MODEL, on_delete=models.CASCADE)
    note = models.CharField(max_length=64)
    created_at = models.DateTimeField(auto_now_add=True)

    def __str__(self) -> str:
        return f"ping {self.pk} by {self.user_id}"
