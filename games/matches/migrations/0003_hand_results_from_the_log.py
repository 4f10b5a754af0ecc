"""Hands dealt and ended in one batch of events (bots playing a whole hand in one task, a tute on the
deal) were stored without their result; the log has it, in the hand's ``hand_finished`` event."""

from django.db import migrations


def fill_in_results(apps, schema_editor):
    Hand = apps.get_model("games", "Hand")
    Event = apps.get_model("games", "Event")
    for hand in Hand.objects.filter(finished_seq__isnull=True).iterator():
        finished = (
            Event.objects.filter(match_id=hand.match_id, type="hand_finished", data__hand=hand.number)
            .order_by("seq")
            .first()
        )
        if finished is not None:
            hand.result, hand.finished_seq = finished.data, finished.seq
            hand.save(update_fields=["result", "finished_seq"])


class Migration(migrations.Migration):
    dependencies = [("games", "0002_match_seating")]

    operations = [migrations.RunPython(fill_in_results, migrations.RunPython.noop)]
