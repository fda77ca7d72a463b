"""Static files are served by the service itself (whitenoise), with DEBUG off, in every mode."""

import pytest
from django.test import Client


@pytest.mark.parametrize(
    "path",
    [
        "/static/drf_spectacular_sidecar/swagger-ui-dist/swagger-ui-bundle.js",
        "/static/admin/css/base.css",
        "/static/play/app.js",
    ],
)
def test_static_files_are_served_with_debug_off(settings, path):
    assert settings.DEBUG is False
    response = Client().get(path)
    assert response.status_code == 200
    assert b"".join(response.streaming_content)


@pytest.mark.django_db
def test_the_api_docs_page_points_at_files_the_service_serves():
    page = Client().get("/api/v1/docs").content.decode()
    assert "swagger-ui-bundle.js" in page
    src = page.split('src="', 2)[1].split('"')[0]
    assert Client().get(src).status_code == 200
