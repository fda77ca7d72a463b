"""Every error `code` the API answers with: the one list, with its HTTP statuses and meaning.

The API's error body is `{"code", "detail"}`; clients switch on `code`. This module is the
source of truth: each operation of the OpenAPI schema lists the codes it can answer with,
by status, with their meaning from here (games/http/api_schema.py OPERATION_CODES; a
rules-engine code's status follows from its kind, games.play.errors.ERROR_OF_KIND; a test
checks they agree), docs/errors.md is generated from it
(`python -m games.http.error_codes > docs/errors.md`), and
tests/games/http/test_error_codes.py checks that every code the code base can raise is
here and that the page matches.

Adding a code is one line in CATALOGUE (then regenerate docs/errors.md), and the code in
games/http/api_schema.py OPERATION_CODES for each operation that answers it (then regenerate
openapi.yaml); a new code of the rules engine is a line in games/engine/errors.py KINDS too,
which gives its status (the action operation lists every one).
Pure Python, no Django: the hostile-client suite's schemathesis hooks import it too.
"""

from typing import NamedTuple


class ErrorCode(NamedTuple):
    # The first is the usual one. An error body's is 4xx or 5xx; a code that is reported in
    # a successful body (a hint whose status is "failed") has that body's status.
    statuses: tuple[int, ...]
    meaning: str


C = ErrorCode

# fmt: off
CATALOGUE: dict[str, ErrorCode] = {
    # ------------------------------------------------ request shape and transport
    "invalid_input": C((400,), "A field, query parameter or header breaks the schema; `errors` names each field."),  # noqa: E501
    "malformed_json": C((400,), "The body is not valid JSON."),
    "payload_too_large": C((413,), "The body is larger than DATA_UPLOAD_MAX_MEMORY_SIZE bytes."),
    "unsupported_media_type": C((415,), "The body is not application/json."),
    "not_acceptable": C((406,), "The Accept header asks for something other than JSON."),
    "method_not_allowed": C((405,), "The path does not take that method; `Allow` lists those it does."),  # noqa: E501
    "not_found": C((404,), "No such match or hint, or no seat for you at it (the same answer for both)."),  # noqa: E501
    "throttled": C((429,), "Too many requests; `retry_after` (and the Retry-After header) says when to try again."),  # noqa: E501
    "stream_needs_asgi": C((503,), "A live stream was asked of a WSGI process; streams are served by the ASGI server."),  # noqa: E501
    "error": C((500,), "A DRF exception the error handler has no code for (none is raised today)."),  # noqa: E501
    "server_error": C((500,), "The service failed: an exception nothing else answered (logged)."),
    "service_unavailable": C((503,), "The database cannot be reached; retry after Retry-After seconds."),  # noqa: E501
    "bad_request": C((400,), "The request is malformed in a way Django refuses (e.g. too many fields)."),  # noqa: E501
    "bad_host": C((400,), "The Host header names a host this service does not answer for."),
    "csrf_failed": C((403,), "A browser session's request failed the CSRF check."),
    # gunicorn's own refusals, before the service's code runs (euchre_service/gunicorn_errors.py)
    "malformed_request": C((400,), "The request is not HTTP that the server can parse."),
    "uri_too_long": C((414,), "The request line is longer than the server takes (4094 bytes)."),
    "headers_too_large": C((431,), "A header, or all of them, is over the server's limits."),
    "expectation_failed": C((417,), "The Expect header asks for something other than 100-continue."),  # noqa: E501
    "not_implemented": C((501,), "A Transfer-Encoding the server does not support."),
    # ------------------------------------------------ accounts and tokens
    "not_authenticated": C((401,), "No token was sent."),
    "authentication_failed": C((401,), "The token, or the username and password, are wrong."),
    "permission_denied": C((403,), "The token is good but may not do this (or a proxy line the server refuses)."),  # noqa: E501
    "username_taken": C((409,), "That username, or one that differs only in case or form, is taken."),  # noqa: E501
    # ------------------------------------------------ matches
    "invalid_seats": C((400,), "A match has four seats, exactly one of them yours (kind 'me')."),
    "invalid_level": C((400,), "Unknown computer player level, or a level for a seat that is not a computer's."),  # noqa: E501
    "invalid_turn_seconds": C((400,), "The turn timer is outside its range."),
    "invalid_option": C((400,), "A rules option is unknown or has a wrong value."),
    "already_seated": C((409,), "You already have a seat at this match."),
    "seat_taken": C((409,), "The seat asked for is not open."),
    "not_away": C((409,), "You are in your seat: there is nothing to return to."),
    "match_not_started": C((409,), "The match waits for players: no one can act yet."),
    "match_started": C((409,), "The public match has started: its seats are taken (watch it instead)."),  # noqa: E501
    "match_finished": C((409,), "The match is over; `seq` is its last event."),
    "no_rematch_offer": C((409,), "No rematch is on offer (none was made, or it was declined or expired): offer one."),  # noqa: E501
    "not_in_queue": C((409,), "You wait at no quick play table (once it started, leave the match instead)."),  # noqa: E501
    "match_not_finished": C((409,), "A replay, a review or a rematch is available once the match is over."),  # noqa: E501
    "match_not_active": C((409,), "Hints are given while a match is being played."),
    "stale_sequence": C((409,), "The expected_seq sent is not the match's newest event; `seq` is."),
    "invalid_idempotency_key": C((400,), "An Idempotency-Key is 1 to 128 visible ASCII characters."),  # noqa: E501
    "idempotency_key_mismatch": C((422,), "This Idempotency-Key was used before with another request: another body, or another match."),  # noqa: E501
    "too_many_active_matches": C((409,), "You sit at as many waiting or active matches as one person may."),  # noqa: E501
    "idempotency_key_reused": C((409,), "This Idempotency-Key is in use right now by another of your requests, at another match: once that one is answered, the key is its (422 idempotency_key_mismatch) or, if it failed, free."),  # noqa: E501
    "hints_disabled": C((422,), "Hints are switched off in this match."),
    # ------------------------------------------------ records, statistics and ratings
    "user_not_found": C((404,), "No such user, or a guest's record asked for by someone else (the same answer)."),  # noqa: E501
    "invalid_cursor": C((400,), "The cursor is not one the list gave; start again without it."),
    # ------------------------------------------------ the player's feed (GET /me/stream)
    "feed_cursor_expired": C((410,), "Your Last-Event-ID is older than the feed keeps (FEED_RETENTION_SECONDS): resync with GET /me/matches and reconnect without it."),  # noqa: E501
    # ------------------------------------------------ the rules (games/engine), with `seq`;
    # the status by the code's kind (games.engine.errors.KINDS): malformed 400, out of
    # turn 409, illegal 422
    "invalid_action": C((400,), "The action is malformed: unknown type, or a field it does not take."),  # noqa: E501
    "invalid_card": C((400,), "That is not a card (use e.g. 'JH', 'TD')."),
    "invalid_suit": C((400,), "That is not a suit (C, D, H or S)."),
    "invalid_seat": C((400,), "A seat is a number from 0 to 3."),
    "not_your_turn": C((409,), "It is another seat's turn (for an action or a hint)."),
    "sitting_out": C((409,), "You sit this hand out: your partner went alone."),
    "wrong_phase": C((422,), "That kind of action is not taken in this phase of the hand."),
    "going_alone_disabled": C((422,), "Going alone is switched off in this match."),
    "dealer_must_call": C((422,), "Stick the dealer: the dealer must name a suit."),
    "cannot_name_turned_down_suit": C((422,), "The suit turned down this hand cannot be named."),
    "card_not_in_hand": C((422,), "You do not hold that card."),
    "must_follow_suit": C((422,), "You hold a card of the suit led and must play one."),
    "illegal_action": C((422,), "The action is not legal now, for another reason the detail gives."),  # noqa: E501
    "farm_under_way": C((422,), "A farmer's exchange is under way: put out the rest of the three."),  # noqa: E501
    "not_a_farmers_card": C((422,), "A farmer puts out nines and tens only."),
    # ------------------------------------------------ a hint's `code` when its status is failed
    # (not an error answer: the hint's own body, from POST .../hints or GET /hints/{id})
    "hint_failed": C((200, 202), "Working the hint out raised an error (logged)."),
    "hint_timed_out": C((200, 202), "The hint was not worked out in time."),
    "hint_service_unavailable": C((200, 202), "The hint could not be queued; ask again."),
    # ------------------------------------------------ match reviews (reported in the body)
    "review_pending": C((202,), "The match's review is being worked out; ask again in a few seconds (Retry-After)."),  # noqa: E501
    "review_failed": C((200,), "The match's review could not be worked out (logged); an operator can rebuild it."),  # noqa: E501
    "review_timed_out": C((200,), "The match's review was queued REVIEW_MAX_ATTEMPTS times and never worked out (its task lost each time); an operator can rebuild it."),  # noqa: E501
}
# fmt: on

# Codes of the rules engine that no request can reach (the engine's own checks of what the
# service hands it); tests/games/http/test_error_codes.py knows them, the API never answers them.
ENGINE_INTERNAL = {"invalid_deck", "inconsistent_sample", "invalid_seed", "invalid_state"}


def render_markdown() -> str:
    """docs/errors.md."""
    lines = [
        "# Error codes",
        "",
        'Every error under `/api/` is a JSON body `{"code", "detail"}`: `code` is stable and',
        "for programs to switch on, `detail` is a sentence for a person. Some add fields:",
        "`errors` (per-field problems, with `invalid_input`), `seq` (the match's newest event,",
        "with the rules codes and `stale_sequence`), `retry_after` (seconds, with 429).",
        "A code with a 2xx status is not an error answer: it is a failed hint's `code`.",
        "",
        "Generated from `games/http/error_codes.py`",
        "(`python -m games.http.error_codes > docs/errors.md`);",
        "a test fails if this page and the code differ.",
        "",
        "| code | status | meaning |",
        "| --- | --- | --- |",
    ]
    for code, entry in sorted(CATALOGUE.items()):
        statuses = ", ".join(str(s) for s in entry.statuses)
        lines.append(f"| `{code}` | {statuses} | {entry.meaning} |")
    return "\n".join(lines) + "\n"


if __name__ == "__main__":
    print(render_markdown(), end="")
