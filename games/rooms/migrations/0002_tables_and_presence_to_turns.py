# The Table and Presence models moved to the turns app (games/turns/models.py). Their tables stay as
# they are (rooms_table, rooms_presence): this only tells Django's state that rooms no longer owns them.

from django.db import migrations


class Migration(migrations.Migration):

    dependencies = [
        ('rooms', '0001_rooms_tables_presence'),
        ('turns', '0001_tables_and_presence_from_rooms'),
    ]

    operations = [
        migrations.SeparateDatabaseAndState(
            state_operations=[
                migrations.DeleteModel(name='Table'),
                migrations.DeleteModel(name='Presence'),
            ],
            database_operations=[],
        ),
    ]
