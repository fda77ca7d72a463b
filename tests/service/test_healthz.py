import pytest
from django.db import connection


@pytest.mark.django_db
def test_healthz_reports_database_and_broker_reachable(client):
    response = client.get("/healthz")
    assert response.status_code == 200
    assert response.json()["database"] == "ok"
    assert response.json()["broker"] == "ok"


@pytest.mark.django_db
def test_tests_run_on_postgresql():
    # The suite is meant to exercise the production database engine.
    assert connection.vendor == "postgresql"
