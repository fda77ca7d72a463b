"""A whole match through the client openapi-python-client generated from the schema, and
nothing else: its operations and its models. Run by tests/clients/test_python_client.py as
`python python_play.py <base url>` with the generated package `euchre_client` on the path;
it is a client developer's program, so it imports no Django and none of the service's code.

It signs in as a guest, creates a match with three computer players, then plays the first
legal action whenever it is its turn (with expected_seq and an Idempotency-Key) until the
match is finished, fetches the replay and checks every deal's commitment. On success it
prints one JSON line that the test reads: the match id, the final scores, the number of
actions played and of hands replayed.

Typed models only: the test type-checks this file with mypy --strict --disallow-any-expr
against the generated package, so an `Any` anywhere (a free-form object, a dict read, a
model's to_dict) fails it."""

import json
import sys
import time
import uuid
from typing import NoReturn

import httpx
from euchre_client import AuthenticatedClient, Client
from euchre_client.api.auth import auth_guest_create
from euchre_client.api.matches import (
    matches_actions_create,
    matches_create,
    matches_replay_retrieve,
    matches_retrieve,
)
from euchre_client.models import (
    CallAction,
    CallActionRequest,
    CallActionTypeEnum,
    DefendAloneAction,
    DefendAloneActionRequest,
    DefendAloneActionTypeEnum,
    DiscardAction,
    DiscardActionRequest,
    DiscardActionTypeEnum,
    FarmAction,
    FarmActionRequest,
    FarmActionTypeEnum,
    GuestToken,
    LevelEnum,
    MatchListCreateInputRequest,
    MatchStatus,
    MatchView,
    NameSuitAction,
    NameSuitActionRequest,
    NameSuitActionTypeEnum,
    OptionsInputRequest,
    OrderUpAction,
    OrderUpActionRequest,
    OrderUpActionTypeEnum,
    PassAction,
    PassActionRequest,
    PassActionTypeEnum,
    PlayAction,
    PlayActionRequest,
    PlayActionTypeEnum,
    RedealAction,
    RedealActionRequest,
    RedealActionTypeEnum,
    Replay,
    SeatInputKindEnum,
    SeatInputRequest,
)
from euchre_client.types import Unset

TARGET_SCORE = 3
MAX_ACTIONS = 1000
TIMEOUT = httpx.Timeout(30)


def fail(what: str, answer: object) -> NoReturn:
    raise SystemExit(f"python client: {what}: {answer!r}")


def sign_in(base_url: str) -> AuthenticatedClient:
    with Client(base_url=base_url, timeout=TIMEOUT) as anonymous:
        # The generated signature asks for an AuthenticatedClient although the operation
        # declares `security: [{}]` (anonymous allowed): openapi-python-client issue #1372.
        guest = auth_guest_create.sync(client=anonymous)  # type: ignore[arg-type]
    if not isinstance(guest, GuestToken):
        fail("guest sign-in", guest)
    return AuthenticatedClient(
        base_url=base_url, token=guest.token, prefix="Token", timeout=TIMEOUT
    )


def create_match(client: AuthenticatedClient) -> MatchView:
    seats = [SeatInputRequest(kind=SeatInputKindEnum.ME)] + [
        SeatInputRequest(kind=SeatInputKindEnum.COMPUTER, level=LevelEnum.RANDOM) for _ in range(3)
    ]
    body = MatchListCreateInputRequest(
        seats=seats,
        # the table variants on (docs/rules.md): their actions come up as legal actions
        options=OptionsInputRequest(
            target_score=TARGET_SCORE,
            joker=True,
            farmers_hand=True,
            no_ace_no_face_no_trump=True,
        ),
    )
    created = matches_create.sync(client=client, body=body)
    if not isinstance(created, MatchView):
        fail("create a match", created)
    return created


def current(client: AuthenticatedClient, match_id: str) -> MatchView:
    answer = matches_retrieve.sync(match_id, client=client)
    if not isinstance(answer, MatchView):
        fail("read the match", answer)
    return answer


# The schema's two discriminated unions: a legal action (in the view), and the action request.
LegalAction = (
    CallAction
    | DefendAloneAction
    | DiscardAction
    | FarmAction
    | NameSuitAction
    | OrderUpAction
    | PassAction
    | PlayAction
    | RedealAction
)
ActionRequest = (
    CallActionRequest
    | DefendAloneActionRequest
    | DiscardActionRequest
    | FarmActionRequest
    | NameSuitActionRequest
    | OrderUpActionRequest
    | PassActionRequest
    | PlayActionRequest
    | RedealActionRequest
)


def request_for(action: LegalAction, seq: int) -> ActionRequest:
    """The request that takes a legal action (each kind is its own model on both sides)."""
    match action:
        case PassAction():
            return PassActionRequest(type_=PassActionTypeEnum.PASS, expected_seq=seq)
        case OrderUpAction(alone=alone):
            return OrderUpActionRequest(
                type_=OrderUpActionTypeEnum.ORDER_UP, alone=alone, expected_seq=seq
            )
        case CallAction(suit=suit, alone=alone):
            return CallActionRequest(
                type_=CallActionTypeEnum.CALL, suit=suit.value, alone=alone, expected_seq=seq
            )
        case DiscardAction(card=card):
            return DiscardActionRequest(
                type_=DiscardActionTypeEnum.DISCARD, card=card.value, expected_seq=seq
            )
        case DefendAloneAction():
            return DefendAloneActionRequest(
                type_=DefendAloneActionTypeEnum.DEFEND_ALONE, expected_seq=seq
            )
        case PlayAction(card=card):
            return PlayActionRequest(
                type_=PlayActionTypeEnum.PLAY, card=card.value, expected_seq=seq
            )
        case NameSuitAction(suit=suit):
            return NameSuitActionRequest(
                type_=NameSuitActionTypeEnum.NAME_SUIT, suit=suit.value, expected_seq=seq
            )
        case FarmAction(card=card):
            return FarmActionRequest(
                type_=FarmActionTypeEnum.FARM, card=card.value, expected_seq=seq
            )
        case RedealAction():
            return RedealActionRequest(type_=RedealActionTypeEnum.REDEAL, expected_seq=seq)
    fail("a legal action the schema does not describe", action)


def first_legal_action(view: MatchView) -> ActionRequest | None:
    if isinstance(view.view, Unset):
        fail("a view without the engine's view", view)
    if not view.view.legal_actions:
        return None
    return request_for(view.view.legal_actions[0], view.seq)


def commitments_verified(replay: Replay) -> list[bool]:
    return [hand.commitment_verified for hand in replay.hands]


def play(client: AuthenticatedClient, match_id: str) -> tuple[MatchView, int]:
    """The first legal action whenever it is this seat's turn, until the match ends."""
    view = current(client, match_id)
    actions = 0
    while view.status != MatchStatus.FINISHED:
        if actions >= MAX_ACTIONS:
            fail("the match did not end", view.seq)
        action = first_legal_action(view)
        if action is None:  # a computer player is still to move: look again shortly
            time.sleep(0.05)
            view = current(client, match_id)
            continue
        answer = matches_actions_create.sync(
            match_id, client=client, body=action, idempotency_key=uuid.uuid4().hex
        )
        if not isinstance(answer, MatchView):
            fail(f"action {action!r}", answer)
        actions += 1
        view = current(client, match_id)
    return view, actions


def main(base_url: str) -> None:
    with sign_in(base_url) as client:
        created = create_match(client)
        if created.you != 0 or created.status != MatchStatus.ACTIVE:
            fail("the new match", created)
        final, actions = play(client, str(created.id))
        winner = final.winner_team
        if winner is None or max(final.scores) < TARGET_SCORE:
            fail("the final state", final)
        if final.scores[winner] != max(final.scores):
            fail("the winner", final)
        replay = matches_replay_retrieve.sync(str(created.id), client=client)
        if not isinstance(replay, Replay):
            fail("the replay", replay)
        verified = commitments_verified(replay)
        if not verified or not all(verified):
            fail("the deals' commitments", verified)
        if len(replay.hands) != final.hands_played:
            fail("hands in the replay", (len(replay.hands), final.hands_played))
        summary: dict[str, object] = {
            "match": str(created.id),
            "scores": final.scores,
            "winner_team": winner,
            "actions": actions,
            "hands": len(replay.hands),
        }
        print(json.dumps(summary))


if __name__ == "__main__":
    main(sys.argv[1])
