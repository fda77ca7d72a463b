"""The log of a match being played, compacted as it goes: each hand over moves from its
Event rows into one compressed EventChunk row (games.archive.compact_match), so that a
match never holds more than about a hand of rows (issue 33).

The log's promise, kept by the database whatever the code path (as migration 0015): an
event is never changed, and leaves its table only once a chunk or the archive of its
match covers its seq; a chunk is never changed, and leaves only once the archive of its
match covers it; an archive is never changed or removed."""

import django.db.models.deletion
from django.db import migrations, models

POSTGRES = [
    """
    CREATE OR REPLACE FUNCTION games_event_append_only() RETURNS trigger AS $$
    BEGIN
        IF TG_OP = 'DELETE' AND (
            EXISTS (
                SELECT 1 FROM games_eventarchive a
                WHERE a.match_id = OLD.match_id AND a.last_seq >= OLD.seq
            ) OR EXISTS (
                SELECT 1 FROM games_eventchunk c
                WHERE c.match_id = OLD.match_id AND c.first_seq <= OLD.seq
                AND c.last_seq >= OLD.seq
            )
        ) THEN
            RETURN OLD;
        END IF;
        RAISE EXCEPTION 'games_event is append-only: %% refused', TG_OP;
    END;
    $$ LANGUAGE plpgsql;
    """,
    """
    CREATE OR REPLACE FUNCTION games_eventchunk_append_only() RETURNS trigger AS $$
    BEGIN
        IF TG_OP = 'DELETE' AND EXISTS (
            SELECT 1 FROM games_eventarchive a
            WHERE a.match_id = OLD.match_id AND a.last_seq >= OLD.last_seq
        ) THEN
            RETURN OLD;
        END IF;
        RAISE EXCEPTION 'games_eventchunk is append-only: %% refused', TG_OP;
    END;
    $$ LANGUAGE plpgsql;
    """,
    """
    CREATE TRIGGER games_eventchunk_append_only
    BEFORE UPDATE OR DELETE ON games_eventchunk
    FOR EACH ROW EXECUTE FUNCTION games_eventchunk_append_only();
    """,
]
POSTGRES_BACK = [
    "DROP TRIGGER IF EXISTS games_eventchunk_append_only ON games_eventchunk",
    "DROP FUNCTION IF EXISTS games_eventchunk_append_only()",
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
]
SQLITE = [
    "DROP TRIGGER IF EXISTS games_event_no_delete",
    """
    CREATE TRIGGER games_event_no_delete BEFORE DELETE ON games_event
    WHEN NOT EXISTS (
        SELECT 1 FROM games_eventarchive a
        WHERE a.match_id = OLD.match_id AND a.last_seq >= OLD.seq
    ) AND NOT EXISTS (
        SELECT 1 FROM games_eventchunk c
        WHERE c.match_id = OLD.match_id AND c.first_seq <= OLD.seq AND c.last_seq >= OLD.seq
    )
    BEGIN SELECT RAISE(ABORT, 'games_event is append-only: DELETE refused'); END;
    """,
    """
    CREATE TRIGGER games_eventchunk_no_update BEFORE UPDATE ON games_eventchunk
    BEGIN SELECT RAISE(ABORT, 'games_eventchunk is append-only: UPDATE refused'); END;
    """,
    """
    CREATE TRIGGER games_eventchunk_no_delete BEFORE DELETE ON games_eventchunk
    WHEN NOT EXISTS (
        SELECT 1 FROM games_eventarchive a
        WHERE a.match_id = OLD.match_id AND a.last_seq >= OLD.last_seq
    )
    BEGIN SELECT RAISE(ABORT, 'games_eventchunk is append-only: DELETE refused'); END;
    """,
]
SQLITE_BACK = [
    "DROP TRIGGER IF EXISTS games_eventchunk_no_update",
    "DROP TRIGGER IF EXISTS games_eventchunk_no_delete",
    "DROP TRIGGER IF EXISTS games_event_no_delete",
    """
    CREATE TRIGGER games_event_no_delete BEFORE DELETE ON games_event
    WHEN NOT EXISTS (
        SELECT 1 FROM games_eventarchive a
        WHERE a.match_id = OLD.match_id AND a.last_seq >= OLD.seq
    )
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
        ('games', '0016_match_rows_updated_in_place'),
    ]

    operations = [
        migrations.CreateModel(
            name='EventChunk',
            fields=[
                ('id', models.BigAutoField(auto_created=True, primary_key=True, serialize=False, verbose_name='ID')),
                ('first_seq', models.PositiveIntegerField()),
                ('last_seq', models.PositiveIntegerField()),
                ('last_event_id', models.BigIntegerField()),
                ('data', models.BinaryField()),
                ('sha256', models.CharField(help_text='Of the canonical JSON, uncompressed.', max_length=64)),
                ('match', models.ForeignKey(db_index=False, on_delete=django.db.models.deletion.PROTECT, related_name='event_chunks', to='games.match')),
            ],
            options={
                'constraints': [models.UniqueConstraint(fields=('match', 'first_seq'), name='event_chunk_unique'), models.CheckConstraint(condition=models.Q(('first_seq__gte', 1), ('last_seq__gte', models.F('first_seq'))), name='event_chunk_seqs')],
            },
        ),
        migrations.RunPython(
            _run({"postgresql": POSTGRES, "sqlite": SQLITE}),
            _run({"postgresql": POSTGRES_BACK, "sqlite": SQLITE_BACK}),
        ),
    ]
