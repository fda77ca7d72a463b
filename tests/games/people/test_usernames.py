"""Usernames are checked as they are stored (Unicode NFKC, as Django's create_user
stores them), unique ignoring case, also when two registrations race: 400 or 409 with
a code, never a 500."""

import threading
import time

import pytest
from django.contrib.auth import get_user_model
from django.db import connection, connections, transaction
from rest_framework.test import APIClient

PASSWORD = "a-long-passphrase"


def register(username: str):
    client = APIClient(raise_request_exception=False)
    return client.post(
        "/api/v1/auth/register", {"username": username, "password": PASSWORD}, format="json"
    )


def sign_in(username: str):
    return APIClient(raise_request_exception=False).post(
        "/api/v1/auth/token", {"username": username, "password": PASSWORD}, format="json"
    )


def accounts_named(name: str) -> list[str]:
    return list(
        get_user_model().objects.filter(username__iexact=name).values_list("username", flat=True)
    )


@pytest.mark.django_db
@pytest.mark.parametrize(
    "typed",
    [
        "\ufdfa" * 10,  # each is 18 characters under NFKC: 180 > 150
        "\ufdfa" * 9,  # 162
        "\u00bd",  # "1⁄2": the fraction slash is not allowed in a name
        "ｇｕｅｓｔ-x",  # the guest prefix, in full-width letters
        "ＧＵＥＳＴ-x",
    ],
)
def test_a_name_that_breaks_the_rules_once_normalised_is_a_400_naming_the_field(typed):
    response = register(typed)
    assert response.status_code == 400, response.content
    assert response.json()["code"] == "invalid_input"
    assert "username" in response.json()["errors"]
    assert get_user_model().objects.count() == 0


@pytest.mark.django_db
@pytest.mark.parametrize("typed", ["ｂｏｂ１", "ＢＯＢ１", "BOB1", "bob1"])
def test_a_name_taken_once_normalised_or_ignoring_case_is_a_409_username_taken(typed):
    assert register("bob1").status_code == 201
    response = register(typed)
    assert response.status_code == 409, response.content
    assert response.json()["code"] == "username_taken"
    assert accounts_named("bob1") == ["bob1"]


@pytest.mark.django_db
def test_a_full_width_name_is_stored_normalised_and_signs_in_as_typed():
    response = register("ｃａｒｏｌ")
    assert response.status_code == 201, response.content
    assert response.json()["username"] == "carol"
    assert sign_in("ｃａｒｏｌ").status_code == 200
    assert sign_in("carol").status_code == 200


def _register_while_another_registration_is_uncommitted(other: str, mine: str):
    """Another registration has written `other` and not committed yet when `mine`
    registers: its existence check sees nothing, and its insert waits on the other's row.
    Returns the response to `mine`, after the other has committed."""
    written, commit = threading.Event(), threading.Event()
    answer: list = []

    def the_other_registration():
        try:
            with transaction.atomic():
                get_user_model().objects.create_user(username=other, password=PASSWORD)
                written.set()
                commit.wait(10)
        finally:
            connection.close()

    def mine_registers():
        try:
            answer.append(register(mine))
        finally:
            connection.close()

    first = threading.Thread(target=the_other_registration)
    first.start()
    assert written.wait(10)
    second = threading.Thread(target=mine_registers)
    second.start()
    _wait_for_a_lock_wait(timeout=5)  # (or already answered, where nothing blocks it)
    commit.set()
    first.join(10)
    second.join(10)
    return answer[0]


def _wait_for_a_lock_wait(timeout: float) -> None:
    deadline = time.monotonic() + timeout
    with connections["default"].cursor() as cursor:
        while time.monotonic() < deadline:
            cursor.execute(
                "SELECT count(*) FROM pg_stat_activity WHERE wait_event_type = 'Lock' "
                "AND datname = current_database()"
            )
            if cursor.fetchone()[0]:
                return
            time.sleep(0.05)


@pytest.mark.django_db(transaction=True)
@pytest.mark.parametrize("other, mine", [("zed", "zed"), ("ZED", "zed"), ("zed", "ｚｅｄ")])
def test_two_registrations_of_one_name_at_once_make_one_account_and_a_409(other, mine):
    response = _register_while_another_registration_is_uncommitted(other, mine)
    assert response.status_code == 409, response.content
    assert response.json()["code"] == "username_taken"
    assert accounts_named("zed") == [other]


@pytest.mark.django_db
@pytest.mark.parametrize("typed", ["Æ", "José", "Ødegaard_7", "Петя"])
def test_a_name_in_any_alphabet_is_accepted_and_the_schema_does_not_say_otherwise(typed):
    """The hostile suite found the schema's username pattern (`\\w`, ASCII in a JSON Schema
    pattern) refusing "Æ", which the server (Python's Unicode `\\w`) accepts."""
    from drf_spectacular.generators import SchemaGenerator

    assert register(typed).status_code == 201
    schema = SchemaGenerator().get_schema(request=None, public=True)
    username = schema["components"]["schemas"]["RegisterInputRequest"]["properties"]["username"]
    assert "pattern" not in username
