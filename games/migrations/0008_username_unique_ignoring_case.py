"""Usernames are unique ignoring case, in the database too: two registrations of "bob"
and "BOB" racing each other's check cannot both succeed (the loser gets 409)."""

from django.conf import settings
from django.db import migrations

INDEX = "games_username_upper_uniq"


def _table(apps) -> str:
    return apps.get_model(settings.AUTH_USER_MODEL)._meta.db_table


def create_index(apps, schema_editor):
    q = schema_editor.quote_name
    schema_editor.execute(
        f"CREATE UNIQUE INDEX {q(INDEX)} ON {q(_table(apps))} (UPPER({q('username')}))"
    )


def drop_index(apps, schema_editor):
    schema_editor.execute(f"DROP INDEX {schema_editor.quote_name(INDEX)}")


class Migration(migrations.Migration):
    dependencies = [
        ("games", "0007_hint_code_match_abandoned"),
        migrations.swappable_dependency(settings.AUTH_USER_MODEL),
    ]

    operations = [migrations.RunPython(create_index, drop_index)]
