"""The database itself refuses to change or remove an event, whatever the code path."""

from django.db import migrations

POSTGRES = [
    """
    CREATE OR REPLACE FUNCTION games_event_append_only() RETURNS trigger AS $$
    BEGIN
        RAISE EXCEPTION 'games_event is append-only: %% refused', TG_OP;
    END;
    $$ LANGUAGE plpgsql;
    """,
    """
    CREATE TRIGGER games_event_append_only
    BEFORE UPDATE OR DELETE ON games_event
    FOR EACH ROW EXECUTE FUNCTION games_event_append_only();
    """,
]
SQLITE = [
    """
    CREATE TRIGGER games_event_no_update BEFORE UPDATE ON games_event
    BEGIN SELECT RAISE(ABORT, 'games_event is append-only: UPDATE refused'); END;
    """,
    """
    CREATE TRIGGER games_event_no_delete BEFORE DELETE ON games_event
    BEGIN SELECT RAISE(ABORT, 'games_event is append-only: DELETE refused'); END;
    """,
]


def forwards(apps, schema_editor):
    statements = {"postgresql": POSTGRES, "sqlite": SQLITE}.get(schema_editor.connection.vendor, [])
    for sql in statements:
        schema_editor.execute(sql)


def backwards(apps, schema_editor):
    if schema_editor.connection.vendor == "postgresql":
        schema_editor.execute("DROP TRIGGER IF EXISTS games_event_append_only ON games_event")
        schema_editor.execute("DROP FUNCTION IF EXISTS games_event_append_only()")
    elif schema_editor.connection.vendor == "sqlite":
        schema_editor.execute("DROP TRIGGER IF EXISTS games_event_no_update")
        schema_editor.execute("DROP TRIGGER IF EXISTS games_event_no_delete")


class Migration(migrations.Migration):
    dependencies = [("games", "0001_initial")]
    operations = [migrations.RunPython(forwards, backwards)]
