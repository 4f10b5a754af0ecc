"""A room may start public matches (RULES.md M5)."""

from django.db import migrations, models


class Migration(migrations.Migration):

    dependencies = [
        ('rooms', '0002_tables_and_presence_to_turns'),
    ]

    operations = [
        migrations.AddField(
            model_name='room',
            name='public',
            field=models.BooleanField(default=False, help_text='Its matches may be watched by any player (M5).'),
        ),
    ]
