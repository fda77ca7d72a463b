"""The event archive (games.archive): a finished match's log in one row, and the triggers
that keep the log append-only with it."""

import django.db.models.deletion
from django.db import migrations, models

# The log's promise, kept by the database whatever the code path: an event is never
# changed, and leaves its table only once an archive row of its match covers its seq
# (games.archive moves a finished match's log there, in the same transaction); an
# archive is never changed or removed.
POSTGRES = [
    """
    CREATE OR REPLACE FUNCTION games_event_append_only() RETURNS trigger AS $$
    BEGIN
        IF TG_OP = 'DELETE' AND EXISTS (
            SELECT 1 FROM games_eventarchive a
            WHERE a.match_id = OLD.match_id AND a.last_seq >= OLD.seq
        ) THEN
            RETURN OLD;
        END IF;
        RAISE EXCEPTION 'games_event is append-only: %% refused', TG_OP;
    END;
    $$ LANGUAGE plpgsql;
    """,
    """
    CREATE OR REPLACE FUNCTION games_eventarchive_append_only() RETURNS trigger AS $$
    BEGIN
        RAISE EXCEPTION 'games_eventarchive is append-only: %% refused', TG_OP;
    END;
    $$ LANGUAGE plpgsql;
    """,
    """
    CREATE TRIGGER games_eventarchive_append_only
    BEFORE UPDATE OR DELETE ON games_eventarchive
    FOR EACH ROW EXECUTE FUNCTION games_eventarchive_append_only();
    """,
]
POSTGRES_BACK = [
    "DROP TRIGGER IF EXISTS games_eventarchive_append_only ON games_eventarchive",
    "DROP FUNCTION IF EXISTS games_eventarchive_append_only()",
    """
    CREATE OR REPLACE FUNCTION games_event_append_only() RETURNS trigger AS $$
    BEGIN
        RAISE EXCEPTION 'games_event is append-only: %% refused', TG_OP;
    END;
    $$ LANGUAGE plpgsql;
    """,
]
SQLITE = [
    # 0013 rebuilt games_event on SQLite (a changed index), which drops its triggers: both
    # are made again here.
    "DROP TRIGGER IF EXISTS games_event_no_update",
    """
    CREATE TRIGGER games_event_no_update BEFORE UPDATE ON games_event
    BEGIN SELECT RAISE(ABORT, 'games_event is append-only: UPDATE refused'); END;
    """,
    "DROP TRIGGER IF EXISTS games_event_no_delete",
    """
    CREATE TRIGGER games_event_no_delete BEFORE DELETE ON games_event
    WHEN NOT EXISTS (
        SELECT 1 FROM games_eventarchive a
        WHERE a.match_id = OLD.match_id AND a.last_seq >= OLD.seq
    )
    BEGIN SELECT RAISE(ABORT, 'games_event is append-only: DELETE refused'); END;
    """,
    """
    CREATE TRIGGER games_eventarchive_no_update BEFORE UPDATE ON games_eventarchive
    BEGIN SELECT RAISE(ABORT, 'games_eventarchive is append-only: UPDATE refused'); END;
    """,
    """
    CREATE TRIGGER games_eventarchive_no_delete BEFORE DELETE ON games_eventarchive
    BEGIN SELECT RAISE(ABORT, 'games_eventarchive is append-only: DELETE refused'); END;
    """,
]
SQLITE_BACK = [
    "DROP TRIGGER IF EXISTS games_eventarchive_no_update",
    "DROP TRIGGER IF EXISTS games_eventarchive_no_delete",
    "DROP TRIGGER IF EXISTS games_event_no_delete",
    """
    CREATE TRIGGER games_event_no_delete BEFORE DELETE ON games_event
    BEGIN SELECT RAISE(ABORT, 'games_event is append-only: DELETE refused'); END;
    """,
]


def _run(statements: dict[str, list[str]]):
    def run(apps, schema_editor):
        for sql in statements.get(schema_editor.connection.vendor, []):
            schema_editor.execute(sql)

    return run


class Migration(migrations.Migration):

    dependencies = [
        ('games', '0014_review_attempts'),
    ]

    operations = [
        migrations.CreateModel(
            name='EventArchive',
            fields=[
                ('match', models.OneToOneField(on_delete=django.db.models.deletion.PROTECT, primary_key=True, related_name='event_archive', serialize=False, to='games.match')),
                ('data', models.BinaryField()),
                ('count', models.PositiveIntegerField()),
                ('last_seq', models.PositiveIntegerField()),
                ('first_event_id', models.BigIntegerField()),
                ('last_event_id', models.BigIntegerField(db_index=True)),
                ('sha256', models.CharField(help_text='Of the canonical JSON, uncompressed.', max_length=64)),
                ('archived_at', models.DateTimeField(auto_now_add=True)),
            ],
        ),
        migrations.AddField(
            model_name="match",
            name="log_archived",
            field=models.BooleanField(default=False),
        ),
        migrations.AddIndex(
            model_name="match",
            index=models.Index(
                condition=models.Q(("log_archived", False), ("status__in", ["finished", "abandoned"])),
                fields=["finished_at"],
                name="match_log_to_archive",
            ),
        ),
        migrations.RunPython(
            _run({"postgresql": POSTGRES, "sqlite": SQLITE}),
            _run({"postgresql": POSTGRES_BACK, "sqlite": SQLITE_BACK}),
        ),
    ]
