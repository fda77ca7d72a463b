"""manage.py export_match, verify_log and rebuild_projections."""

import copy
import json
import random
from io import StringIO

import pytest
from django.contrib.auth import get_user_model
from django.core.management import CommandError, call_command
from django.db import transaction
from django.test import TestCase

from games.log import eventlog, fairness
from games.models import Hand, Match, MatchStatus
from games.play import services
from games.play.services import SeatSpec

SEATS = [SeatSpec("me")] + [SeatSpec("computer", "random")] * 3


SHORT = {"target_score": 3}  # a few hands: most tests need a finished match, not a long one


def play_to_the_end(user, seed: int = 0, **options) -> Match:
    """A finished match: the user's seat plays a random legal action each turn, through
    the services, and the computer seats answer as they do in production: their turns
    are queued when a transaction commits, which the test runs by hand."""
    rng = random.Random(seed)
    with TestCase.captureOnCommitCallbacks(execute=True):
        match = services.match_create(user=user, seats=SEATS, **options)
    for _ in range(1000):
        match.refresh_from_db()
        if match.status == MatchStatus.FINISHED:
            return match
        state = eventlog.load(match).state
        with TestCase.captureOnCommitCallbacks(execute=True):
            services.action_submit(
                match_id=match.pk,
                seat_index=state.turn,
                action=rng.choice(state.legal_actions()).to_dict(),
                user=user if state.turn == 0 else None,
            )
    raise AssertionError("the match did not end")


@pytest.fixture
def user(django_user_model):
    return django_user_model.objects.create_user("alice")


def export(match: Match) -> dict:
    out = StringIO()
    call_command("export_match", str(match.pk), stdout=out)
    return json.loads(out.getvalue())


@pytest.fixture(scope="module")
def exported(django_db_setup, django_db_blocker) -> dict:
    """One finished match's export, made once for the module (and rolled back)."""
    with django_db_blocker.unblock(), transaction.atomic():
        user = get_user_model().objects.create_user("exporter")
        document = export(play_to_the_end(user, seed=1))
        transaction.set_rollback(True)
    return document


@pytest.fixture
def log(exported) -> dict:
    """A copy of the export for a test to tamper with."""
    return copy.deepcopy(exported)


def verify(document, tmp_path) -> str:
    path = tmp_path / "log.json"
    path.write_text(json.dumps(document))
    out = StringIO()
    call_command("verify_log", str(path), stdout=out)
    return out.getvalue().strip()


def verify_fails(document, tmp_path) -> str:
    with pytest.raises(CommandError) as failed:
        verify(document, tmp_path)
    return str(failed.value)


def index_of(document: dict, type_: str, nth: int = 0) -> int:
    return [i for i, e in enumerate(document["events"]) if e["type"] == type_][nth]


def renumber(document: dict) -> None:
    for i, event in enumerate(document["events"], start=1):
        event["seq"] = i


# ---------------------------------------------------------------- export_match


@pytest.mark.django_db
def test_export_match_prints_a_header_and_every_event_in_seq_order(user):
    match = play_to_the_end(user, options=SHORT)
    document = export(match)
    assert document["format"] == "euchre-match-log"
    header = document["match"]
    assert header["id"] == str(match.pk)
    assert header["options"] == match.options
    assert header["first_dealer"] == match.first_dealer
    assert header["scores"] == [match.score_ns, match.score_we]
    events = document["events"]
    assert [e["seq"] for e in events] == list(range(1, match.seq + 1))
    assert set(events[0]) == {"seq", "type", "seat", "payload", "created_at"}
    assert events[0]["type"] == "match_created"
    assert events[-1]["type"] == "hand_revealed"
    dealt = events[index_of(document, "hand_dealt")]["payload"]
    assert len(dealt["deck"]) == 24 and dealt["salt"]


@pytest.mark.django_db
def test_export_match_writes_the_same_document_to_a_file_with_output(user, tmp_path):
    match = services.match_create(user=user, seats=SEATS)
    path = tmp_path / "match.json"
    err = StringIO()
    call_command("export_match", str(match.pk), "--output", str(path), stderr=err)
    written = json.loads(path.read_text())
    assert written["match"]["id"] == str(match.pk)
    assert [e["type"] for e in written["events"]][:2] == ["match_created", "seat_taken"]
    assert f"{match.seq} events" in err.getvalue()
    assert "holds the deck of the hand being played" in err.getvalue()


@pytest.mark.django_db
@pytest.mark.parametrize("match_id", ["not-a-uuid", "00000000-0000-0000-0000-000000000000"])
def test_export_match_refuses_an_unknown_match(match_id):
    with pytest.raises(CommandError, match="No match with id"):
        call_command("export_match", match_id)


# ---------------------------------------------------------------- verify_log


@pytest.mark.django_db
def test_an_exported_log_verifies_ok_with_its_events_hands_and_final_score(user, tmp_path):
    match = play_to_the_end(user, seed=2, options=SHORT)
    hands = match.hands.count()
    assert verify(export(match), tmp_path) == (
        f"OK: {match.seq} events, {hands} hands, final score {match.score_ns}-{match.score_we}"
    )


def test_a_log_of_a_match_still_being_played_verifies_ok_and_says_so(log, tmp_path):
    cut = index_of(log, "bid", 2)
    log["events"] = log["events"][: cut + 1]
    assert verify(log, tmp_path).endswith("(the match is not finished)")


def test_verify_log_reads_a_bare_list_of_events_from_standard_input(log, monkeypatch):
    monkeypatch.setattr("sys.stdin", StringIO(json.dumps(log["events"])))
    out = StringIO()
    call_command("verify_log", "-", stdout=out)
    assert out.getvalue().startswith(f"OK: {len(log['events'])} events")


def test_a_card_played_that_is_not_in_the_players_hand_is_reported_with_its_index(log, tmp_path):
    dealt = log["events"][index_of(log, "hand_dealt")]["payload"]
    at = index_of(log, "card_played")
    # The last three cards of the kitty are never in anyone's hand.
    log["events"][at]["payload"]["action"]["card"] = dealt["deck"][23]
    message = verify_fails(log, tmp_path)
    assert message.startswith(f"FAILED: event {at} (seq {at + 1}, card_played): card_not_in_hand:")


def test_a_wrong_trick_winner_is_reported_as_a_derived_event_mismatch(log, tmp_path):
    at = index_of(log, "trick_won")
    payload = log["events"][at]["payload"]
    payload["seat"] = (payload["seat"] + 1) % 4
    message = verify_fails(log, tmp_path)
    assert f"event {at} (seq {at + 1}, trick_won): derived_event_mismatch:" in message


def test_a_wrong_score_is_reported_as_a_derived_event_mismatch(log, tmp_path):
    at = index_of(log, "hand_scored")
    log["events"][at]["payload"]["points"] += 1
    assert f"event {at} (seq {at + 1}, hand_scored): derived_event_mismatch" in verify_fails(
        log, tmp_path
    )


def test_a_gap_in_the_sequence_numbers_is_reported_where_it_starts(log, tmp_path):
    del log["events"][10]
    message = verify_fails(log, tmp_path)
    assert message.startswith("FAILED: event 10 (seq 12, ")
    assert "seq_not_contiguous: sequence numbers run 1, 2, 3, ... with no gap: expected 11" in (
        message
    )


def test_a_log_that_does_not_start_at_seq_1_is_reported_at_its_first_event(log, tmp_path):
    for event in log["events"]:
        event["seq"] += 1
    assert "event 0 (seq 2, match_created): seq_not_contiguous" in verify_fails(log, tmp_path)


def test_a_dealt_deck_that_does_not_match_its_commitment_fails_the_commitment_check(log, tmp_path):
    at = index_of(log, "hand_dealt", 1)
    deck = log["events"][at]["payload"]["deck"]
    deck[0], deck[1] = deck[1], deck[0]  # still a whole deck, so the engine would deal it
    message = verify_fails(log, tmp_path)
    assert f"event {at} (seq {at + 1}, hand_dealt): commitment_mismatch: hand 2:" in message


def test_a_revealed_salt_that_does_not_match_the_commitment_fails_the_check(log, tmp_path):
    at = index_of(log, "hand_revealed")
    log["events"][at]["payload"]["salt"] = "0" * 32
    assert f"event {at} (seq {at + 1}, hand_revealed): commitment_mismatch" in verify_fails(
        log, tmp_path
    )


def test_a_revealed_deck_other_than_the_one_dealt_is_reported_even_with_its_own_hash(log, tmp_path):
    at = index_of(log, "hand_revealed")
    revealed = log["events"][at]["payload"]
    revealed["deck"] = revealed["deck"][::-1]
    revealed["commitment"] = fairness.commitment(" ".join(revealed["deck"]), revealed["salt"])
    assert f"event {at} (seq {at + 1}, hand_revealed): reveal_mismatch" in verify_fails(
        log, tmp_path
    )


def test_a_hand_whose_deck_is_never_revealed_is_reported_at_the_next_deal(log, tmp_path):
    at = index_of(log, "hand_revealed")
    del log["events"][at]
    renumber(log)
    assert index_of(log, "hand_dealt", 1) == at
    assert f"event {at} (seq {at + 1}, hand_dealt): missing_reveal: hand 1" in verify_fails(
        log, tmp_path
    )


def test_an_upcard_that_is_not_the_decks_is_reported_as_a_deal_mismatch(log, tmp_path):
    at = index_of(log, "hand_dealt")
    payload = log["events"][at]["payload"]
    payload["upcard"] = payload["deck"][0]
    assert f"event {at} (seq {at + 1}, hand_dealt): deal_mismatch" in verify_fails(log, tmp_path)


def test_a_log_cut_off_before_a_derived_event_reports_what_is_missing_at_its_end(log, tmp_path):
    at = index_of(log, "trick_won")
    log["events"] = log["events"][:at]
    assert f"FAILED: event {at}: missing_derived_event: expected {{'type': 'trick_won'" in (
        verify_fails(log, tmp_path)
    )


def test_a_header_that_disagrees_with_the_log_is_reported(log, tmp_path):
    log["match"]["first_dealer"] = (log["match"]["first_dealer"] + 1) % 4
    assert "event 0 (seq 1, match_created): header_mismatch" in verify_fails(log, tmp_path)


def test_an_event_of_an_unknown_type_is_reported_with_the_replays_code(log, tmp_path):
    log["events"][3]["type"] = "hand_doubled"
    assert "event 3 (seq 4, hand_doubled): unknown_event_type" in verify_fails(log, tmp_path)


def test_verify_log_refuses_a_file_that_is_not_json_or_not_there(tmp_path):
    path = tmp_path / "broken.json"
    path.write_text("{not json")
    with pytest.raises(CommandError, match="is not JSON"):
        call_command("verify_log", str(path))
    with pytest.raises(CommandError, match="Cannot read"):
        call_command("verify_log", str(tmp_path / "missing.json"))
    assert "malformed_file" in verify_fails({"events": "none"}, tmp_path)


# ---------------------------------------------------------------- rebuild_projections


def projection_of(match: Match) -> tuple:
    match.refresh_from_db()
    hands = list(
        Hand.objects.filter(match=match)
        .order_by("number")
        .values_list(
            "number",
            "dealer",
            "commitment",
            "upcard",
            "trump",
            "maker",
            "alone",
            "result",
            "scoring_team",
            "points",
            "makers_tricks",
            "first_seq",
            "last_seq",
        )
    )
    summary = (
        match.status,
        match.score_ns,
        match.score_we,
        match.winner_team,
        match.hands_played,
        match.finished_at,
        match.seq,
    )
    return summary, hands


@pytest.mark.django_db
def test_rebuild_projections_restores_hand_rows_and_scores_after_they_are_corrupted(user):
    match = play_to_the_end(user, seed=3, options=SHORT)
    before = projection_of(match)
    assert len(before[1]) == match.hands_played >= 1
    Hand.objects.filter(match=match).update(trump="", maker=None, result="", points=0)
    Hand.objects.filter(match=match, number=1).delete()
    Match.objects.filter(pk=match.pk).update(
        status=MatchStatus.ACTIVE, score_ns=0, score_we=0, winner_team=None, hands_played=0
    )
    assert projection_of(match) != before
    out = StringIO()
    call_command("rebuild_projections", str(match.pk), stdout=out)
    assert projection_of(match) == before
    assert "Rebuilt the projections of 1 match." in out.getvalue()


@pytest.mark.django_db
def test_rebuild_projections_all_rebuilds_every_match_and_leaves_the_log_alone(user):
    finished = play_to_the_end(user, seed=4, options=SHORT)
    waiting = services.match_create(user=user, seats=[SeatSpec("me")] + [SeatSpec("open")] * 3)
    expected = [projection_of(finished), projection_of(waiting)]
    events = list(finished.events.values_list("seq", "type", "payload"))
    Hand.objects.all().delete()
    Match.objects.update(score_ns=7, score_we=7, status=MatchStatus.FINISHED)
    out = StringIO()
    call_command("rebuild_projections", "--all", "-v", "2", stdout=out)
    assert [projection_of(finished), projection_of(waiting)] == expected
    assert list(finished.events.values_list("seq", "type", "payload")) == events
    assert f"{finished.pk}: finished" in out.getvalue()
    assert "Rebuilt the projections of 2 matches." in out.getvalue()


@pytest.mark.django_db
def test_rebuild_projections_wants_match_ids_or_all_and_rebuilds_nothing_for_an_unknown_id(
    user,
):
    match = play_to_the_end(user, seed=5, options={"target_score": 2})
    Match.objects.filter(pk=match.pk).update(score_ns=0, score_we=0)
    with pytest.raises(CommandError, match="Name the matches"):
        call_command("rebuild_projections")
    with pytest.raises(CommandError, match="Name the matches"):
        call_command("rebuild_projections", str(match.pk), "--all")
    missing = "00000000-0000-0000-0000-000000000000"
    with pytest.raises(CommandError, match=f"No match with id {missing}, nope"):
        call_command("rebuild_projections", str(match.pk), missing, "nope")
    match.refresh_from_db()
    assert (match.score_ns, match.score_we) == (0, 0)


@pytest.mark.django_db
def test_an_abandoned_match_exports_and_verifies_and_says_it_was_abandoned(user, tmp_path):
    with TestCase.captureOnCommitCallbacks(execute=True):
        match = services.match_create(user=user, seats=SEATS, options=SHORT)
        services.match_leave(match_id=match.pk, user=user)
    match.refresh_from_db()
    document = export(match)
    assert document["match"]["status"] == "abandoned"
    assert document["events"][-1]["type"] == "match_abandoned"
    assert verify(document, tmp_path).endswith(
        "(the match was abandoned: no person was left at it)"
    )
    document["events"].append({**document["events"][-2], "seq": match.seq + 1})
    assert f"event {match.seq}" in verify_fails(document, tmp_path)
    assert "event_after_abandoned" in verify_fails(document, tmp_path)
