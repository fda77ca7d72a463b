"""Idempotency-Keys packed 32 to a row, a person's at one match (IdempotencyKeys,
games.idempotency): about 40 bytes a key, where a row a key (IdempotentResponse, no longer
written) took 600 to 800 bytes with its summary (issue 33).

A key is added by rewriting its page's row: no index holds a column that changes, and the
table keeps 30 % of each page free, so PostgreSQL does it in place (a HOT update, as
migration 0016 for games_match). The keys and their records (random bytes, which do not
compress) stay in the row rather than in the TOAST table."""

import django.contrib.postgres.indexes
import django.db.models.deletion
from django.conf import settings
from django.db import migrations, models

FILLFACTOR = 70


def _storage(forwards: bool):
    def run(apps, schema_editor) -> None:
        if schema_editor.connection.vendor != "postgresql":
            return  # SQLite, the embedded default, has no such settings
        table = schema_editor.quote_name("games_idempotencykeys")
        if forwards:
            schema_editor.execute(f"ALTER TABLE {table} SET (fillfactor = {FILLFACTOR})")
            schema_editor.execute(
                f"ALTER TABLE {table} ALTER COLUMN keys SET STORAGE MAIN,"
                " ALTER COLUMN entries SET STORAGE MAIN"
            )

    return run


class Migration(migrations.Migration):

    dependencies = [
        ('games', '0017_event_chunks'),
        migrations.swappable_dependency(settings.AUTH_USER_MODEL),
    ]

    operations = [
        migrations.CreateModel(
            name='IdempotencyKeys',
            fields=[
                ('id', models.BigAutoField(auto_created=True, primary_key=True, serialize=False, verbose_name='ID')),
                ('page', models.PositiveSmallIntegerField()),
                ('keys', models.BinaryField(default=bytes)),
                ('entries', models.BinaryField(default=bytes)),
                ('created_at', models.DateTimeField()),
                ('updated_at', models.DateTimeField()),
                ('match', models.ForeignKey(db_index=False, on_delete=django.db.models.deletion.CASCADE, to='games.match')),
                ('user', models.ForeignKey(db_index=False, on_delete=django.db.models.deletion.CASCADE, to=settings.AUTH_USER_MODEL)),
            ],
            options={
                'verbose_name_plural': 'idempotency keys',
                'indexes': [django.contrib.postgres.indexes.BrinIndex(fields=['created_at'], name='idempotency_keys_brin')],
                'constraints': [models.UniqueConstraint(fields=('user', 'match', 'page'), name='idempotency_keys_unique')],
            },
        ),
        migrations.RunPython(_storage(True), _storage(False)),
    ]
