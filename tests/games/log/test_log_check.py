"""One log checker (the strict Replayer, one error type) and one read model of the log
cut into hands (games.log.hands), shared by the replay API and the admin."""

import copy
from pathlib import Path

import pytest

from games import engine as E
from games.admin import hand_record
from games.log import eventlog, events, fairness, hands, log_check
from games.log.deal_view import seat_cards
from games.models import Event
from games.play import selectors
from tests.games.test_commands import play_to_the_end

ROOT = Path(__file__).resolve().parents[3]


@pytest.fixture
def finished(django_user_model):
    return play_to_the_end(django_user_model.objects.create_user("alice"), seed=3)


def feed_all(replayer: eventlog.Replayer, rows: list[dict]) -> None:
    for row in rows:
        replayer.feed(row["type"], row["seat"], row["payload"], seq=row["seq"])
    replayer.finish()


@pytest.mark.django_db
def test_loading_a_state_skips_the_fairness_checks_that_the_strict_replay_makes(finished):
    """The hot path (eventlog.load on every action) replays the rules only; the checks
    that need the whole log are the strict mode of the same Replayer."""
    rows = log_check.export_match_log(finished)["events"]
    tampered = copy.deepcopy(rows)
    dealt = next(r for r in tampered if r["type"] == events.HAND_DEALT)
    dealt["payload"]["salt"] = "not the salt"

    feed_all(eventlog.Replayer(), tampered)  # the rules alone: nothing wrong
    with pytest.raises(eventlog.LogError) as failed:
        feed_all(eventlog.Replayer(strict=True), tampered)
    assert failed.value.code == "commitment_mismatch"
    assert (failed.value.seq, failed.value.type) == (dealt["seq"], events.HAND_DEALT)
    with pytest.raises(eventlog.LogError) as same:
        log_check.check_log(tampered)
    assert str(same.value) == str(failed.value)
    assert str(log_check.check_log(rows)).startswith(f"OK: {len(rows)} events")


def test_the_management_package_holds_only_its_commands():
    """verify_log, export_match and the admin share games/log/log_check.py; the commands
    parse arguments and print."""
    modules = {p.name for p in (ROOT / "games" / "management").glob("*.py")}
    assert modules == {"__init__.py"}
    for command in (ROOT / "games" / "management" / "commands").glob("*.py"):
        assert "class " not in command.read_text().replace("class Command(BaseCommand)", "")


@pytest.mark.django_db
def test_the_replay_and_the_admins_hand_pages_cut_the_log_the_same_way(finished):
    log = hands.log_by_hand(finished)
    replay = selectors.replay_get(match=finished)
    every = list(Event.objects.filter(match=finished).order_by("seq"))
    assert [e["seq"] for e in replay["setup"]] == [e.seq for e in log.setup]
    assert [e["seq"] for h in replay["hands"] for e in h["events"]] == [
        e.seq for e in every[len(log.setup) :]
    ]
    assert len(replay["hands"]) == len(log.hands) == finished.hands.count()
    for replayed, hand in zip(replay["hands"], log.hands, strict=True):
        record = hand_record(finished, hand.number)
        seqs = [e["seq"] for e in replayed["events"]]
        assert (record["first_seq"], record["last_seq"]) == (seqs[0], seqs[-1])
        assert [e["seq"] for e in record["events"]] == seqs
        assert record["problem"] is None and replayed["commitment_verified"]


# ---------------------------------------------------------------- a joker upcard's naming


def joker_named_log(marked: bool = True) -> list[dict]:
    """A joker match's log up to the dealer (east) naming the joker upcard's suit, as the
    service writes it: the deal marked dealer_names_suit, the naming bringing the dealer's
    cards (marked=False: as logs were written before the mark)."""
    deck = [E.card_str(c) for c in E.seeded_deck(5, joker=True)]
    deck.remove("JK")
    deck.insert(20, "JK")  # the joker turned up
    salt = fairness.new_salt()
    dealt = events.hand_dealt(
        hand=1,
        dealer=3,
        upcard="JK",
        commitment=fairness.commitment(" ".join(deck), salt),
        deck=deck,
        salt=salt,
        dealer_names_suit=marked,
    )
    cards = seat_cards(deck, 3, 3) if marked else None
    named = events.action(3, E.name_suit(E.parse_suit("H")), cards=cards)
    created = events.match_created(
        options={"joker": True}, first_dealer=3, hints_allowed=False, turn_seconds=None
    )
    return [
        {"seq": seq, "type": e.type, "seat": e.seat, "payload": copy.deepcopy(e.payload)}
        for seq, e in enumerate((created, dealt, named), start=1)
    ]


def strict_error(rows: list[dict]) -> str:
    with pytest.raises(eventlog.LogError) as failed:
        feed_all(eventlog.Replayer(strict=True), rows)
    return failed.value.code


def test_the_strict_replay_checks_the_cards_a_dealer_naming_a_joker_upcard_picks_up():
    feed_all(eventlog.Replayer(strict=True), joker_named_log())
    feed_all(eventlog.Replayer(strict=True), joker_named_log(marked=False))  # an older log

    wrong = joker_named_log()
    wrong[2]["payload"]["cards"][0] = "AS" if wrong[2]["payload"]["cards"][0] != "AS" else "KS"
    assert strict_error(wrong) == "bid_cards_mismatch"
    missing = joker_named_log()
    del missing[2]["payload"]["cards"]
    assert strict_error(missing) == "bid_cards_mismatch"
    unmarked_with_cards = joker_named_log(marked=False)
    unmarked_with_cards[2]["payload"]["cards"] = joker_named_log()[2]["payload"]["cards"]
    assert strict_error(unmarked_with_cards) == "bid_cards_mismatch"


def test_the_strict_replay_refuses_a_dealer_names_suit_mark_the_rules_do_not_make():
    rows = joker_named_log()
    deck = rows[1]["payload"]["deck"]
    deck[20], deck[0] = deck[0], deck[20]  # the joker dealt, not turned up
    rows[1]["payload"]["upcard"] = deck[20]
    rows[1]["payload"]["commitment"] = fairness.commitment(
        " ".join(deck), rows[1]["payload"]["salt"]
    )
    assert strict_error(rows[:2]) == "deal_mismatch"
