# Reads and sweeps that do not grow with history (docs/scaling.md): no index on a column that every
# action writes (HOT updates of the match row, with room left on its page), the matches in play behind
# one partial index, no index that a unique constraint already gives, the idempotency purge by index.

import django.db.models.deletion
import django.utils.timezone
from django.db import migrations, models


def match_fillfactor(apps, schema_editor, value=80):
    """Leave a fifth of each page of games_match free, where an action's HOT update of the row goes."""
    if schema_editor.connection.vendor == "postgresql":
        schema_editor.execute(f"ALTER TABLE games_match SET (fillfactor = {value})")


def match_fillfactor_reset(apps, schema_editor):
    if schema_editor.connection.vendor == "postgresql":
        schema_editor.execute("ALTER TABLE games_match RESET (fillfactor)")


class Migration(migrations.Migration):

    dependencies = [
        ('games', '0005_public_matches'),
    ]

    operations = [
        migrations.RemoveIndex(
            model_name='match',
            name='match_status_updated',
        ),
        migrations.RemoveIndex(
            model_name='match',
            name='match_public_active',
        ),
        migrations.AlterField(
            model_name='event',
            name='match',
            field=models.ForeignKey(db_index=False, on_delete=django.db.models.deletion.PROTECT, related_name='events', to='games.match'),
        ),
        migrations.AlterField(
            model_name='hand',
            name='match',
            field=models.ForeignKey(db_index=False, on_delete=django.db.models.deletion.CASCADE, related_name='hands', to='games.match'),
        ),
        migrations.AlterField(
            model_name='idempotencyrecord',
            name='created_at',
            field=models.DateTimeField(db_index=True, default=django.utils.timezone.now),
        ),
        migrations.AlterField(
            model_name='seat',
            name='match',
            field=models.ForeignKey(db_index=False, on_delete=django.db.models.deletion.CASCADE, related_name='seats', to='games.match'),
        ),
        migrations.AddIndex(
            model_name='match',
            index=models.Index(condition=models.Q(('status', 'active')), fields=['public'], name='match_active'),
        ),
        migrations.RunPython(match_fillfactor, match_fillfactor_reset),
    ]
