# The token's digest behind one unique index (unique=True added a second, for LIKE, on PostgreSQL).

from django.db import migrations, models


class Migration(migrations.Migration):

    dependencies = [
        ('players', '0004_signup_answers'),
    ]

    operations = [
        migrations.AlterField(
            model_name='token',
            name='digest',
            field=models.CharField(max_length=64),
        ),
        migrations.AddConstraint(
            model_name='token',
            constraint=models.UniqueConstraint(fields=('digest',), name='token_digest_unique'),
        ),
    ]
