"""Rematch: at the end of a match, the same seats again, with the dealer moved on one.

Any person seated at a finished match may offer it (`rematch_offer`, which is their
acceptance too); each other person accepts or declines; computer seats accept at once.
When the last acceptance comes in, the new match is created with every seat taken (the
same people and computer levels, the same rules, hints, turn timer and visibility, its
first dealer the seat after the finished match's first dealer) and starts; the finished
match links to it (`Match.rematch`, and `rematch_of` on the new one, in its
match_created event too). An offer not answered by everyone within
REMATCH_OFFER_SECONDS expires; after a decline or an expiry anyone may offer again.

Every answer locks the finished match's row, so answers to one offer are taken one at a
time: two last acceptances at once start one rematch, not two (and the one-to-one
`rematch_of` would refuse a second).
"""

from datetime import timedelta
from typing import Any

from django.conf import settings
from django.contrib.auth.models import AbstractBaseUser
from django.db import transaction
from django.utils import timezone

from games import engine as E
from games.models import Match, MatchStatus, RematchOffer, RematchStatus, SeatKind
from games.play import services
from games.play.errors import Conflict, NotFound
from games.play.selectors import status_of
from games.play.services import COMPUTER, ME, SeatSpec

PENDING, ACCEPTED, DECLINED = "pending", "accepted", "declined"


def rematch_offer(*, match_id: Any, user: AbstractBaseUser) -> RematchOffer:
    """Offer a rematch (or, if one is on offer, accept it)."""
    with transaction.atomic():
        match, seat = _finished_match(match_id, user)
        offer = RematchOffer.objects.filter(match=match).first()
        if offer is not None and _open(offer):
            return _answer(match, offer, seat, ACCEPTED, user)
        if offer is not None and offer.status == RematchStatus.STARTED:
            return offer
        services.room_for_another_match(user)
        answers = {
            str(s.index): ACCEPTED if s.kind != SeatKind.HUMAN or s.index == seat else PENDING
            for s in match.seats.all()
        }
        expires_at = timezone.now() + timedelta(seconds=settings.REMATCH_OFFER_SECONDS)
        if offer is None:
            offer = RematchOffer(match=match)
        offer.offered_by, offer.status, offer.answers = user, RematchStatus.PENDING, answers
        offer.expires_at = expires_at
        offer.save()
        _start_if_all_accepted(match, offer)
    return offer


def rematch_answer(*, match_id: Any, user: AbstractBaseUser, accept: bool) -> RematchOffer:
    """Accept or decline the rematch on offer."""
    with transaction.atomic():
        match, seat = _finished_match(match_id, user)
        offer = RematchOffer.objects.filter(match=match).first()
        if offer is not None and offer.status == RematchStatus.STARTED and accept:
            return offer  # accepted already (a retry)
        if offer is None or not _open(offer):
            why = "none was made" if offer is None else f"it is {status_of(offer)}"
            raise Conflict("no_rematch_offer", f"No rematch is on offer ({why}): offer one.")
        return _answer(match, offer, seat, ACCEPTED if accept else DECLINED, user)


def _answer(
    match: Match, offer: RematchOffer, seat: int, answer: str, user: AbstractBaseUser
) -> RematchOffer:
    if answer == ACCEPTED:
        services.room_for_another_match(user)
    offer.answers = {**offer.answers, str(seat): answer}
    if answer == DECLINED:
        offer.status = RematchStatus.DECLINED
    offer.save(update_fields=["answers", "status"])
    _start_if_all_accepted(match, offer)
    return offer


def _start_if_all_accepted(match: Match, offer: RematchOffer) -> None:
    if offer.status != RematchStatus.PENDING or set(offer.answers.values()) != {ACCEPTED}:
        return
    seats = []
    for seat in match.seats.all().select_related("user").order_by("index"):
        if seat.kind == SeatKind.HUMAN:
            seats.append((seat.user, SeatSpec(ME)))
        else:
            seats.append((None, SeatSpec(COMPUTER, seat.bot_level or "").checked()))
    services.new_match(
        created_by=offer.offered_by,
        seats=seats,
        rules=E.Options.from_dict(match.options),
        hints_allowed=match.hints_allowed,
        first_dealer=(match.first_dealer + 1) % 4,
        turn_seconds=match.turn_seconds,
        visibility=match.visibility,
        rematch_of=match,
    )
    offer.status = RematchStatus.STARTED
    offer.save(update_fields=["status"])


def _finished_match(match_id: Any, user: AbstractBaseUser) -> tuple[Match, int]:
    """The finished match, locked, and the caller's seat at it (404 if none)."""
    match = services.locked_match(match_id)
    seat = match.seats.filter(user=user, kind=SeatKind.HUMAN).first()
    if seat is None:
        raise NotFound()
    if match.status != MatchStatus.FINISHED:
        raise Conflict("match_not_finished", "A rematch is offered once the match is over.")
    return match, seat.index


def _open(offer: RematchOffer) -> bool:
    if offer.status == RematchStatus.PENDING and offer.expires_at <= timezone.now():
        offer.status = RematchStatus.EXPIRED
        offer.save(update_fields=["status"])
    return offer.status == RematchStatus.PENDING
