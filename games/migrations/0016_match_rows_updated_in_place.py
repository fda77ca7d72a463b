"""A move's UPDATE of its match's row in place (a HOT update): no index holds a column that
an ordinary move changes (games.models.MATCH_MOVE_FIELDS), and each page of the table keeps
30 % free for the row's next versions (PostgreSQL's fillfactor; pages written from now on).
Before, each move added an entry to every index of the table (updated_at was in three of
them) and left a dead row and dead index entries behind for the vacuum."""

from django.conf import settings
from django.db import migrations, models

FILLFACTOR = 70


def _fillfactor(value: int | None):
    def run(apps, schema_editor) -> None:
        if schema_editor.connection.vendor != "postgresql":
            return  # SQLite, the embedded default, has no such setting
        table = schema_editor.quote_name("games_match")
        if value is None:
            schema_editor.execute(f"ALTER TABLE {table} RESET (fillfactor)")
        else:
            schema_editor.execute(f"ALTER TABLE {table} SET (fillfactor = {int(value)})")

    return run


class Migration(migrations.Migration):
    dependencies = [
        ("games", "0015_event_archive"),
        migrations.swappable_dependency(settings.AUTH_USER_MODEL),
    ]

    operations = [
        migrations.RemoveIndex(model_name="match", name="games_match_status_bdf26c_idx"),
        migrations.RemoveIndex(model_name="match", name="games_match_awaitin_6fd4fb_idx"),
        migrations.RemoveIndex(model_name="match", name="match_turn_deadline"),
        migrations.RemoveIndex(model_name="match", name="match_public"),
        migrations.AddIndex(
            model_name="match",
            index=models.Index(fields=["status", "finished_at"], name="match_status_finished"),
        ),
        migrations.AddIndex(
            model_name="match",
            index=models.Index(
                condition=models.Q(("visibility", "public")),
                fields=["status"],
                name="match_public_live",
            ),
        ),
        migrations.RunPython(_fillfactor(FILLFACTOR), _fillfactor(None)),
    ]
