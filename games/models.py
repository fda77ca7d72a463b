"""Matches, seats, the event log, and the projections derived from it.

The log (Event) is the source of truth: a match's state is the replay of its
events through the rules engine. Match summary fields and Hand rows are
projections written in the same transaction as the events they follow from,
and `manage.py rebuild_projections` rewrites them from the log.
"""

import uuid
from typing import TYPE_CHECKING

from django.conf import settings
from django.contrib.postgres.indexes import BrinIndex
from django.db import models

if TYPE_CHECKING:
    from django.contrib.auth.base_user import AbstractBaseUser


class MatchStatus(models.TextChoices):
    WAITING = "waiting", "waiting for players"
    ACTIVE = "active", "being played"
    FINISHED = "finished", "finished"
    # No person sits at the match any more (the last one left): it ends with no winner,
    # and no computer player plays it out for nobody (event match_abandoned).
    ABANDONED = "abandoned", "abandoned"


class SeatKind(models.TextChoices):
    HUMAN = "human", "person"
    OPEN = "open", "open seat"
    COMPUTER = "computer", "computer player"


class Visibility(models.TextChoices):
    PRIVATE = "private", "only the seated"
    # Anyone signed in may watch it: the spectator's view (games.log.events.redact, no seat).
    PUBLIC = "public", "anyone may watch"


# The columns of a match's row that an ordinary move changes (games.play.services writes them,
# with those that change only as the match starts or ends: status, winner_team,
# finished_at). No index of the table may hold one (Match.Meta.indexes).
MATCH_MOVE_FIELDS = (
    "seq",
    "score_ns",
    "score_we",
    "hands_played",
    "awaiting_computer",
    "turn_seat",
    "turn_deadline",
    "updated_at",
)
# What a commit of events writes to the match's row (games.play.services): a move's columns,
# and those that change only as the match starts or ends.
COMMITTED_FIELDS = (*MATCH_MOVE_FIELDS, "status", "winner_team", "finished_at")


class Match(models.Model):
    id = models.UUIDField(primary_key=True, default=uuid.uuid4, editable=False)
    created_by = models.ForeignKey(
        settings.AUTH_USER_MODEL, on_delete=models.PROTECT, related_name="matches_created"
    )
    status = models.CharField(max_length=16, choices=MatchStatus, default=MatchStatus.WAITING)
    options = models.JSONField(help_text="The rules engine's options for this match.")
    hints_allowed = models.BooleanField(default=True)
    first_dealer = models.PositiveSmallIntegerField()
    # The sequence number of the newest event: the match row is locked while an
    # action is applied, and a client may send the number it expects.
    seq = models.PositiveIntegerField(default=0)
    score_ns = models.PositiveSmallIntegerField("score south-north", default=0)
    score_we = models.PositiveSmallIntegerField("score west-east", default=0)
    winner_team = models.PositiveSmallIntegerField(null=True, blank=True)
    hands_played = models.PositiveSmallIntegerField(default=0)
    # Whether the seat to act is a computer player: the periodic sweep re-queues
    # matches that have waited on one for too long.
    awaiting_computer = models.BooleanField(default=False)
    # The seat to act (none while dealing, waiting or once over): a projection saved with
    # the rest of the summary, so that "is it my turn?" across a person's matches
    # (GET /me/matches, the feed) is a column, not a replay of each log.
    turn_seat = models.PositiveSmallIntegerField(null=True, blank=True)
    # Turn timers, a match option: a person who has not acted this many seconds after
    # the turn came to them is played for by a computer player until they come back.
    turn_seconds = models.PositiveIntegerField(null=True, blank=True)
    turn_deadline = models.DateTimeField(null=True, blank=True)
    visibility = models.CharField(max_length=8, choices=Visibility, default=Visibility.PRIVATE)
    # Quick play (games/people/quickplay.py): the table's options as one key (people asking with
    # the same options sit at the same table), the level open seats are filled with when
    # the wait is over ("" if the people asked for no computer players), and when.
    quickplay_key = models.CharField(max_length=64, blank=True, default="")
    quickplay_fill_level = models.CharField(max_length=16, blank=True, default="")
    quickplay_starts_at = models.DateTimeField(null=True, blank=True)
    # A rematch (games/people/rematch.py) links to the finished match it follows.
    rematch_of = models.OneToOneField(
        "self", on_delete=models.PROTECT, null=True, blank=True, related_name="rematch"
    )
    created_at = models.DateTimeField(auto_now_add=True)
    updated_at = models.DateTimeField(auto_now=True)
    finished_at = models.DateTimeField(null=True, blank=True)
    # Its log has moved into its EventArchive (games.log.archive, in the same transaction): the
    # partial index below finds the ended matches still to archive without a scan of
    # every match ever played.
    log_archived = models.BooleanField(default=False)

    class Meta:
        ordering = ["-created_at"]
        verbose_name_plural = "matches"
        # No index holds a column that an ordinary move changes (MATCH_MOVE_FIELDS): every
        # move UPDATEs this row, and PostgreSQL writes that in place (a HOT update: no new
        # entry in any index) only when no indexed column changed and the page has room
        # (migration 0016 leaves 30 % of each page free). With updated_at indexed, each
        # move wrote a new entry into every one of the table's indexes and left a dead
        # one behind. The sweep finds the matches awaiting a computer or past a deadline
        # among the live ones (by status), as it finds the unattended ones.
        indexes = [
            models.Index(fields=["status", "finished_at"], name="match_status_finished"),
            models.Index(
                fields=["status"],
                condition=models.Q(visibility="public"),
                name="match_public_live",
            ),
            models.Index(
                fields=["quickplay_key", "created_at"],
                condition=models.Q(status="waiting") & ~models.Q(quickplay_key=""),
                name="match_quickplay_waiting",
            ),
            models.Index(
                fields=["finished_at"],
                condition=models.Q(status__in=["finished", "abandoned"], log_archived=False),
                name="match_log_to_archive",
            ),
        ]
        constraints = [
            models.CheckConstraint(
                condition=models.Q(first_dealer__lte=3), name="match_dealer_seat"
            ),
            models.CheckConstraint(
                condition=models.Q(winner_team__isnull=True) | models.Q(winner_team__lte=1),
                name="match_winner_team",
            ),
        ]

    def __str__(self) -> str:
        return f"match {self.id} ({self.status})"


class Seat(models.Model):
    match = models.ForeignKey(Match, on_delete=models.CASCADE, related_name="seats")
    index = models.PositiveSmallIntegerField()
    kind = models.CharField(max_length=16, choices=SeatKind)
    user = models.ForeignKey(
        settings.AUTH_USER_MODEL,
        on_delete=models.PROTECT,
        null=True,
        blank=True,
        related_name="seats",
    )
    bot_level = models.CharField(max_length=16, blank=True, default="")
    # A person whose turn timed out: the computer player of bot_level plays for them
    # until they take the seat back.
    away = models.BooleanField(default=False)

    class Meta:
        ordering = ["index"]
        constraints = [
            models.UniqueConstraint(fields=["match", "index"], name="seat_unique_index"),
            models.UniqueConstraint(
                fields=["match", "user"],
                condition=models.Q(user__isnull=False),
                name="seat_one_per_user",
            ),
            models.CheckConstraint(condition=models.Q(index__lte=3), name="seat_index_range"),
            models.CheckConstraint(
                condition=(models.Q(kind="human") & models.Q(user__isnull=False))
                | (~models.Q(kind="human") & models.Q(user__isnull=True)),
                name="seat_user_iff_human",
            ),
            models.CheckConstraint(
                condition=models.Q(away=False) | models.Q(kind="human"), name="seat_away_is_human"
            ),
        ]

    def __str__(self) -> str:
        return f"seat {self.index} of {self.match_id}"


class Hand(models.Model):
    """A projection: one row per dealt hand, filled in as the hand goes."""

    match = models.ForeignKey(Match, on_delete=models.CASCADE, related_name="hands")
    number = models.PositiveSmallIntegerField()
    dealer = models.PositiveSmallIntegerField()
    commitment = models.CharField(max_length=64)
    upcard = models.CharField(max_length=2)
    trump = models.CharField(max_length=1, blank=True, default="")
    maker = models.PositiveSmallIntegerField(null=True, blank=True)
    alone = models.BooleanField(default=False)
    result = models.CharField(max_length=32, blank=True, default="")
    scoring_team = models.PositiveSmallIntegerField(null=True, blank=True)
    points = models.PositiveSmallIntegerField(default=0)
    makers_tricks = models.PositiveSmallIntegerField(null=True, blank=True)
    first_seq = models.PositiveIntegerField()
    last_seq = models.PositiveIntegerField(null=True, blank=True)

    class Meta:
        ordering = ["match", "number"]
        constraints = [
            models.UniqueConstraint(fields=["match", "number"], name="hand_unique_number"),
        ]

    def __str__(self) -> str:
        return f"hand {self.number} of {self.match_id}"


class AppendOnlyQuerySet(models.QuerySet):
    def update(self, **kwargs):
        raise TypeError(f"{self.model.KIND} are never updated: the log is append-only.")

    def delete(self):
        raise TypeError(f"{self.model.KIND} are never deleted: the log is append-only.")


class AppendOnly(models.Model):
    """The log's rows (events, archives): never updated nor deleted through the ORM (and
    the database's triggers refuse it: migrations 0002, 0015)."""

    KIND = "Rows"
    objects = AppendOnlyQuerySet.as_manager()

    class Meta:
        abstract = True

    def save(self, *args, **kwargs):
        if not self._state.adding:
            raise TypeError(f"{self.KIND} are never updated: the log is append-only.")
        super().save(*args, **kwargs)

    def delete(self, *args, **kwargs):
        raise TypeError(f"{self.KIND} are never deleted: the log is append-only.")


class Event(AppendOnly):
    """One entry of a match's append-only log. Written only by games.log.eventlog."""

    # No index of its own: the unique (match, seq) index leads with the match and serves
    # every read of a match's events (an index on the match alone cost ~30 bytes an event).
    match = models.ForeignKey(
        Match, on_delete=models.PROTECT, related_name="events", db_index=False
    )
    seq = models.PositiveIntegerField()
    type = models.CharField(max_length=32)
    seat = models.PositiveSmallIntegerField(null=True, blank=True)
    payload = models.JSONField(default=dict)
    created_at = models.DateTimeField(auto_now_add=True)

    KIND = "Events"

    class Meta:
        ordering = ["match", "seq"]
        constraints = [
            models.UniqueConstraint(fields=["match", "seq"], name="event_unique_seq"),
            models.CheckConstraint(condition=models.Q(seq__gte=1), name="event_seq_positive"),
        ]

    def __str__(self) -> str:
        return f"#{self.seq} {self.type}"


class EventArchive(AppendOnly):
    """A match's whole log, moved here in one row some time after the match ended
    (games.log.archive): every field of every event, compressed, in place of its Event rows
    (about 150 bytes of row header, ids and index entries each, before the payload).
    Read through games.log.eventlog.events_of like the rows it replaces; a database trigger
    refuses to change or remove it, and lets an Event row go only once an archive of
    its match covers its seq."""

    match = models.OneToOneField(
        Match, on_delete=models.PROTECT, primary_key=True, related_name="event_archive"
    )
    # zlib of the canonical JSON (games.log.archive.canonical): [id, seq, type, seat, payload,
    # created_at] per event, in seq order.
    data = models.BinaryField()
    count = models.PositiveIntegerField()
    last_seq = models.PositiveIntegerField()
    # The events' global ids (the feed's cursors, games.http.feed): the first and the last.
    first_event_id = models.BigIntegerField()
    last_event_id = models.BigIntegerField(db_index=True)
    sha256 = models.CharField(max_length=64, help_text="Of the canonical JSON, uncompressed.")
    archived_at = models.DateTimeField(auto_now_add=True)

    KIND = "Event archives"

    def __str__(self) -> str:
        return f"the log of {self.match_id}: {self.count} events, archived"


class EventChunk(AppendOnly):
    """Some of a match's events while it is played: the hands already over (every event
    before the newest hand_dealt), moved here from their rows soon after each hand ends
    (games.log.archive.compact_match), compressed as an archive is (with a preset dictionary of
    the strings events repeat: a hand is too short for zlib to learn them). Read through
    games.log.eventlog.events_of like the rows they replace; a database trigger refuses to
    change one, lets one go only once its match's EventArchive covers it, and lets an
    Event row go only once a chunk (or the archive) of its match covers its seq. The
    archive of an ended match takes in its chunks."""

    # No index of its own: the unique (match, first_seq) index serves every read.
    match = models.ForeignKey(
        Match, on_delete=models.PROTECT, related_name="event_chunks", db_index=False
    )
    first_seq = models.PositiveIntegerField()
    last_seq = models.PositiveIntegerField()
    # The newest event's global id (the feed's cursors, games.http.feed).
    last_event_id = models.BigIntegerField()
    # zlib (games.log.compression.CHUNK_DICTIONARY) of the canonical JSON
    # (games.log.archive.canonical) of seqs first_seq..last_seq.
    data = models.BinaryField()
    sha256 = models.CharField(max_length=64, help_text="Of the canonical JSON, uncompressed.")

    KIND = "Event chunks"

    class Meta:
        constraints = [
            models.UniqueConstraint(fields=["match", "first_seq"], name="event_chunk_unique"),
            models.CheckConstraint(
                condition=models.Q(first_seq__gte=1, last_seq__gte=models.F("first_seq")),
                name="event_chunk_seqs",
            ),
        ]

    def __str__(self) -> str:
        return f"events {self.first_seq} to {self.last_seq} of {self.match_id}"


class IdempotencyKeys(models.Model):
    """A person's Idempotency-Keys at one match, packed PAGE_KEYS to a row (games.play.idempotency):
    for each key, its 64-bit digest (`keys`, 8 bytes each) and, at the same position in
    `entries` (32 bytes each), the request's hash (128 bits), the match's seq after the
    action, when it was used (to the second) and the turn deadline the answer showed.
    That is all a replay needs: the answer is the seat's view folded from the log up to that
    seq. About 40 bytes a key, where a row a key cost 150 or more.

    A key is added by rewriting its page's row, which PostgreSQL does in place (a HOT
    update: no index holds a column that changes, and the table keeps 30 % of each page
    free, migration 0018); a page of 32 keys rewrites at most 1.3 KB. Each key is kept
    IDEMPOTENCY_KEY_HOURS (24); the periodic games.tasks.prune deletes a row once its
    newest key has expired."""

    PAGE_KEYS = 32

    # No index of their own: the unique (user, match, page) index serves a person's
    # lookups (their rows of the last day, by user) and the upsert of each new key.
    user = models.ForeignKey(settings.AUTH_USER_MODEL, on_delete=models.CASCADE, db_index=False)
    match = models.ForeignKey(Match, on_delete=models.CASCADE, db_index=False)
    page = models.PositiveSmallIntegerField()
    keys = models.BinaryField(default=bytes)
    entries = models.BinaryField(default=bytes)
    # When the page's first key was used (indexed: the prune's candidates) and its newest
    # (not indexed, so that adding a key is an update in place).
    created_at = models.DateTimeField()
    updated_at = models.DateTimeField()

    class Meta:
        verbose_name_plural = "idempotency keys"
        constraints = [
            models.UniqueConstraint(
                fields=["user", "match", "page"], name="idempotency_keys_unique"
            ),
        ]
        # Rows are made in time order, so a BRIN index (a few pages for millions of rows)
        # finds the old ones for games.tasks.prune.
        indexes = [BrinIndex(fields=["created_at"], name="idempotency_keys_brin")]

    def __str__(self) -> str:
        return f"idempotency keys of user {self.user_id} at {self.match_id}, page {self.page}"


class IdempotentResponse(models.Model):
    """The record of an Idempotency-Key as it was stored before IdempotencyKeys (one row a
    key, with the summary fields that changed or the whole body): such rows are still
    replayed, and expire within IDEMPOTENCY_KEY_HOURS of the release that stopped writing
    them (games.tasks.prune deletes them); nothing new is written here."""

    # No index of their own: the unique (user, key) index serves the user's, and a match
    # is never deleted while its responses are kept (they expire within a day).
    user = models.ForeignKey(settings.AUTH_USER_MODEL, on_delete=models.CASCADE, db_index=False)
    key = models.CharField(max_length=128)
    match = models.ForeignKey(Match, on_delete=models.CASCADE, db_index=False)
    # sha256 of what was asked (services.request_fingerprint): the same key with another
    # request is refused rather than answered with this one's response. Empty on rows
    # stored before it was kept.
    request_hash = models.CharField(max_length=64, blank=True, default="")
    status_code = models.PositiveSmallIntegerField()
    # The whole response, as stored before issue 15 (such rows are replayed from it);
    # None on rows stored since, which keep seq, seat and summary instead.
    body = models.JSONField(null=True, blank=True)
    seq = models.PositiveIntegerField(null=True, blank=True)
    seat = models.PositiveSmallIntegerField(null=True, blank=True)
    summary = models.JSONField(null=True, blank=True)
    created_at = models.DateTimeField(auto_now_add=True)

    class Meta:
        constraints = [
            models.UniqueConstraint(fields=["user", "key"], name="idempotency_unique_key"),
        ]
        # Rows are written in time order, so a BRIN index (a few pages for millions of
        # rows) finds the expired ones for games.tasks.prune.
        indexes = [BrinIndex(fields=["created_at"], name="idempotency_created_brin")]

    def __str__(self) -> str:
        return f"idempotency key {self.key} of user {self.user_id}"


class HintStatus(models.TextChoices):
    PENDING = "pending", "being worked out"
    DONE = "done", "ready"
    STALE = "stale", "the match moved on first"
    FAILED = "failed", "could not be worked out"


class Hint(models.Model):
    """A player's request for a suggested action, answered by a worker."""

    id = models.UUIDField(primary_key=True, default=uuid.uuid4, editable=False)
    match = models.ForeignKey(Match, on_delete=models.CASCADE, related_name="hints")
    seat = models.PositiveSmallIntegerField()
    user = models.ForeignKey(settings.AUTH_USER_MODEL, on_delete=models.CASCADE)
    seq = models.PositiveIntegerField(help_text="The match's newest event when asked.")
    status = models.CharField(max_length=16, choices=HintStatus, default=HintStatus.PENDING)
    action = models.JSONField(null=True, blank=True)
    explanation = models.TextField(blank=True, default="")
    # Why a failed hint failed, a stable snake_case code: hint_failed, hint_timed_out,
    # hint_service_unavailable (docs/bots.md, "In the service").
    code = models.CharField(max_length=64, blank=True, default="")
    created_at = models.DateTimeField(auto_now_add=True)
    completed_at = models.DateTimeField(null=True, blank=True)

    class Meta:
        constraints = [
            models.UniqueConstraint(fields=["match", "seat", "seq"], name="hint_one_per_turn"),
        ]

    def __str__(self) -> str:
        return f"hint {self.id} ({self.status})"


class RematchStatus(models.TextChoices):
    PENDING = "pending", "waiting for answers"
    STARTED = "started", "everyone accepted: the rematch is being played"
    DECLINED = "declined", "someone declined"
    EXPIRED = "expired", "not every answer came in time"


class RematchOffer(models.Model):
    """An offer, made at the end of a match, to play again with the same seats. One per
    finished match: offering again after a decline or expiry renews it."""

    match = models.OneToOneField(Match, on_delete=models.CASCADE, related_name="rematch_offer")
    offered_by = models.ForeignKey(settings.AUTH_USER_MODEL, on_delete=models.CASCADE)
    status = models.CharField(max_length=16, choices=RematchStatus, default=RematchStatus.PENDING)
    # Seat index (as text: JSON) -> "pending", "accepted" or "declined"; a computer seat
    # accepts at once.
    answers = models.JSONField(default=dict)
    created_at = models.DateTimeField(auto_now_add=True)
    expires_at = models.DateTimeField()

    def __str__(self) -> str:
        return f"rematch offer for {self.match_id} ({self.status})"


class ReviewStatus(models.TextChoices):
    PENDING = "pending", "being worked out"
    READY = "ready", "ready"
    FAILED = "failed", "could not be worked out"


class MatchReview(models.Model):
    """The review of a finished match (games/play/reviews.py; worked out by the task
    later.REVIEW_MATCH, bots/review.py): every person's decisions valued, the biggest
    mistakes per hand, each person's accuracy. Rebuilt from the log on demand
    (`manage.py review_match`), so it is a projection, not a record."""

    match = models.OneToOneField(
        Match, on_delete=models.CASCADE, primary_key=True, related_name="review"
    )
    status = models.CharField(max_length=16, choices=ReviewStatus, default=ReviewStatus.PENDING)
    version = models.PositiveSmallIntegerField(
        default=0, help_text="bots.review.VERSION it was built with; another is rebuilt."
    )
    body = models.JSONField(null=True, blank=True)
    seconds = models.FloatField(null=True, blank=True, help_text="How long building it took.")
    error = models.TextField(blank=True, default="")
    # Why a failed review failed, a stable snake_case code: review_failed (building it
    # raised), review_timed_out (queued REVIEW_MAX_ATTEMPTS times, its task lost each time).
    code = models.CharField(max_length=64, blank=True, default="")
    attempts = models.PositiveSmallIntegerField(
        default=0, help_text="Times its task was queued (the sweep queues a lost one again)."
    )
    requested_at = models.DateTimeField()
    built_at = models.DateTimeField(null=True, blank=True)

    def __str__(self) -> str:
        return f"review of match {self.match_id} ({self.status})"


# ---------------------------------------------------------------- records and ratings
# Projections of the logs of finished matches (games/log/records.py): written in the same
# transaction as a match's match_finished event, and rewritten from the logs by
# `manage.py rebuild_projections` (--all rebuilds the ratings too, in finish order).


class Opposition(models.TextChoices):
    """Who a person played against: both opponents people, both one computer level, or
    anything else (a person and a computer, two levels)."""

    PEOPLE = "people", "people"
    RANDOM = "random", "computer: random"
    EASY = "easy", "computer: easy"
    MEDIUM = "medium", "computer: medium"
    HARD = "hard", "computer: hard"
    MIXED = "mixed", "a person and a computer, or two levels"


# A guest (games.people.accounts.guest_create) is a user whose name bears the prefix no
# registered name may take (the API refuses it): their record is kept (MatchRecord.guest),
# shown to them alone, and never rated.
GUEST_PREFIX = "guest-"


def is_guest(user: "AbstractBaseUser") -> bool:
    """A guest's name has the prefix no registered name may take (the API refuses it)."""
    return user.get_username().casefold().startswith(GUEST_PREFIX)


class MatchRecord(models.Model):
    """One person's record of one finished match (every person seated when it started,
    one who left before the end too: leaving does not dodge the result)."""

    match = models.ForeignKey(Match, on_delete=models.CASCADE, related_name="records")
    user = models.ForeignKey(
        settings.AUTH_USER_MODEL, on_delete=models.CASCADE, related_name="match_records"
    )
    seat = models.PositiveSmallIntegerField()
    team = models.PositiveSmallIntegerField()
    won = models.BooleanField()
    # The match_finished event's time: the order of the history and of the ratings.
    finished_at = models.DateTimeField()
    guest = models.BooleanField(default=False)
    left = models.BooleanField(default=False, help_text="Left before the end.")
    opposition = models.CharField(max_length=16, choices=Opposition)
    # Every seat as it was when the match started: [{seat, kind, user_id, username, level,
    # left}], what a result table shows.
    players = models.JSONField()
    points_for = models.PositiveSmallIntegerField()
    points_against = models.PositiveSmallIntegerField()
    hands = models.PositiveSmallIntegerField(help_text="Hands dealt (thrown in ones too).")
    made_trump = models.PositiveSmallIntegerField(help_text="Hands in which this seat made trump.")
    euchred = models.PositiveSmallIntegerField(help_text="...and was euchred.")
    alone_tried = models.PositiveSmallIntegerField()
    alone_made = models.PositiveSmallIntegerField(help_text="Lone hands not euchred.")

    class Meta:
        ordering = ["-finished_at", "-id"]
        constraints = [
            models.UniqueConstraint(fields=["match", "user"], name="record_one_per_user"),
        ]
        indexes = [models.Index(fields=["user", "-finished_at", "-id"], name="record_history")]

    def __str__(self) -> str:
        return f"record of user {self.user_id} in {self.match_id}"


class Rating(models.Model):
    """A registered person's skill rating (openskill PlackettLuce; games/log/ratings.py)."""

    user = models.OneToOneField(
        settings.AUTH_USER_MODEL, on_delete=models.CASCADE, primary_key=True, related_name="rating"
    )
    mu = models.FloatField()
    sigma = models.FloatField()
    # mu - 3 sigma: the leaderboard's order (a newcomer starts at 0).
    ordinal = models.FloatField()
    matches = models.PositiveIntegerField(default=0)

    class Meta:
        indexes = [models.Index(fields=["-ordinal"], name="rating_ordinal")]

    def __str__(self) -> str:
        return f"rating of user {self.user_id}: {self.ordinal:.2f}"


class RatingChange(models.Model):
    """What one rated match did to one person's rating."""

    match = models.ForeignKey(Match, on_delete=models.CASCADE, related_name="rating_changes")
    user = models.ForeignKey(
        settings.AUTH_USER_MODEL, on_delete=models.CASCADE, related_name="rating_changes"
    )
    seat = models.PositiveSmallIntegerField()
    mu_before = models.FloatField()
    sigma_before = models.FloatField()
    mu_after = models.FloatField()
    sigma_after = models.FloatField()

    class Meta:
        constraints = [
            models.UniqueConstraint(fields=["match", "user"], name="rating_change_one_per_user"),
        ]

    def __str__(self) -> str:
        return f"rating change of user {self.user_id} in {self.match_id}"
