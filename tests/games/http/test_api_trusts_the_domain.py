"""The API trusts the domain (issue 10, item 6): its choices and ranges are the engine's
and the services' own constants, so the schema says exactly what the domain accepts, and
the rules of a match's seats are the service's, whoever calls it."""

import dataclasses

import pytest
from django.test import Client

from games import engine as E
from games.engine.options import LONE_LEAD_CHOICES, TARGET_SCORE_MAX, TARGET_SCORE_MIN
from games.log.levels import DEFAULT_LEVEL, LEVELS
from games.play import services
from games.play.errors import BadInput
from games.play.services import SeatSpec


@pytest.fixture(scope="module")
def components() -> dict:
    response = Client().get("/api/v1/schema?format=json")
    assert response.status_code == 200
    return response.json()["components"]["schemas"]


def test_the_schema_offers_the_domains_choices_and_ranges(components):
    seat = components["SeatInputRequest"]["properties"]
    assert components[seat["kind"]["$ref"].rsplit("/", 1)[1]]["enum"] == list(
        services.SEAT_SPEC_KINDS
    )
    assert components[seat["level"]["$ref"].rsplit("/", 1)[1]]["enum"] == list(LEVELS)
    options = components["OptionsInputRequest"]["properties"]
    assert (options["target_score"]["minimum"], options["target_score"]["maximum"]) == (
        TARGET_SCORE_MIN,
        TARGET_SCORE_MAX,
    )
    assert components[options["lone_lead"]["$ref"].rsplit("/", 1)[1]]["enum"] == list(
        LONE_LEAD_CHOICES
    )
    # Every option, no other (to_dict leaves the variants out at their defaults).
    assert set(options) == {field.name for field in dataclasses.fields(E.Options)}
    # The action request: a oneOf on type, one variant per engine action type, each with
    # the fields the engine takes for it (and expected_seq).
    action = components["ActionRequest"]
    assert list(action["discriminator"]["mapping"]) == list(E.ACTION_TYPES)
    for kind, ref in action["discriminator"]["mapping"].items():
        variant = components[ref.rsplit("/", 1)[1]]["properties"]
        assert set(variant) == {"type", "expected_seq", *E.ACTION_FIELDS[kind]}


def test_a_computer_seat_without_a_level_gets_the_default_from_the_service():
    assert SeatSpec("computer").checked() == SeatSpec("computer", DEFAULT_LEVEL)
    assert SeatSpec("open").checked() == SeatSpec("open")


@pytest.mark.parametrize(
    "spec, code",
    [
        (SeatSpec("me", "hard"), "invalid_level"),  # only a computer seat has a level
        (SeatSpec("open", "easy"), "invalid_level"),
        (SeatSpec("computer", "genius"), "invalid_level"),
        (SeatSpec("robot"), "invalid_seats"),
    ],
)
def test_the_service_refuses_a_seat_the_api_would_refuse(spec, code):
    with pytest.raises(BadInput) as refused:
        spec.checked()
    assert refused.value.code == code


@pytest.mark.django_db
def test_a_level_for_a_persons_seat_is_refused_naming_the_field(player):
    _user, client = player
    seats = [{"kind": "me", "level": "hard"}] + [{"kind": "computer"}] * 3
    response = client.post("/api/v1/matches", {"seats": seats}, format="json")
    assert response.status_code == 400
    body = response.json()
    assert body["code"] == "invalid_input"
    assert body["errors"]["seats"]["0"]["level"] == ["Only a computer seat has a level."]
