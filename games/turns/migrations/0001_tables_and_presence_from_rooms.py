# Table and Presence, moved from the rooms app with their tables as they were (rooms_table,
# rooms_presence): state only, nothing changes in the database.

import django.db.models.deletion
from django.db import migrations, models


class Migration(migrations.Migration):

    initial = True

    dependencies = [
        ('games', '0002_match_seating'),
        ('players', '0001_initial'),
        ('rooms', '0001_rooms_tables_presence'),
    ]

    operations = [
        migrations.SeparateDatabaseAndState(
            state_operations=[
                migrations.CreateModel(
                    name='Table',
                    fields=[
                        ('match', models.OneToOneField(on_delete=django.db.models.deletion.CASCADE, primary_key=True, related_name='table', serialize=False, to='games.match')),
                        ('presence_timeout', models.PositiveIntegerField()),
                        ('reconnect_grace', models.PositiveIntegerField()),
                        ('turn_seconds', models.PositiveIntegerField(blank=True, null=True)),
                        ('room', models.ForeignKey(blank=True, null=True, on_delete=django.db.models.deletion.SET_NULL, related_name='tables', to='rooms.room')),
                    ],
                    options={
                        'db_table': 'rooms_table',
                    },
                ),
                migrations.CreateModel(
                    name='Presence',
                    fields=[
                        ('id', models.BigAutoField(auto_created=True, primary_key=True, serialize=False, verbose_name='ID')),
                        ('seat', models.PositiveSmallIntegerField()),
                        ('last_seen', models.DateTimeField()),
                        ('disconnected_at', models.DateTimeField(blank=True, null=True)),
                        ('disconnected_seq', models.PositiveIntegerField(blank=True, null=True)),
                        ('match', models.ForeignKey(on_delete=django.db.models.deletion.CASCADE, related_name='presences', to='games.match')),
                        ('player', models.ForeignKey(on_delete=django.db.models.deletion.CASCADE, related_name='presences', to='players.player')),
                    ],
                    options={
                        'db_table': 'rooms_presence',
                        'ordering': ['seat'],
                        'indexes': [models.Index(fields=['match', 'player'], name='presence_match_player')],
                        'constraints': [models.UniqueConstraint(fields=('match', 'seat'), name='presence_match_seat_unique')],
                    },
                ),
            ],
            database_operations=[],
        ),
    ]
