"""Public matches (RULES.md M5): any player may watch them; the live ones are listed by an index."""

from django.db import migrations, models


class Migration(migrations.Migration):

    dependencies = [
        ('games', '0004_verifiable_deals'),
    ]

    operations = [
        migrations.AddField(
            model_name='match',
            name='public',
            field=models.BooleanField(default=False, help_text='Any player may watch it (RULES.md M5).'),
        ),
        migrations.AddIndex(
            model_name='match',
            index=models.Index(condition=models.Q(('public', True), ('status', 'active')), fields=['updated_at'], name='match_public_active'),
        ),
    ]
