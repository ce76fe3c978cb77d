"""Deals no bot can know (issue 11): a 128-bit secret seed per match, independent deals by
default, no league seed.

* ``Match.deck_seed`` widens from bigint to its decimal digits (varchar(39)): PostgreSQL
  casts every stored value to the same number's text, so finished matches keep their
  seeds (and their replays re-simulate).
* ``League.seed`` goes: no deck derives from a league value any more.
* Going back narrows the seeds to 63 bits (a bigint holds no more): those matches' decks
  no longer follow from their seeds, but their replays keep the full seed and deck.
* ``League.deals``: every existing league plays independent deals from its next round on
  (its dial-in bots could otherwise remember the deal); pairs already scheduled keep their
  shared deck, and the site withholds a game of such a pair until its partner is over.
"""

from django.db import migrations, models

import arena.models


def narrow_seeds(apps, schema_editor):  # type: ignore[no-untyped-def]
    Match = apps.get_model("arena", "Match")
    wide = [
        (pk, seed)
        for pk, seed in Match.objects.values_list("pk", "deck_seed").iterator()
        if int(seed) >= 2**63
    ]
    for pk, seed in wide:
        Match.objects.filter(pk=pk).update(deck_seed=str(int(seed) % 2**63))


class Migration(migrations.Migration):
    dependencies = [
        ("arena", "0004_botversion"),
    ]

    operations = [
        migrations.RemoveField(
            model_name="league",
            name="seed",
        ),
        migrations.AddField(
            model_name="league",
            name="deals",
            field=models.CharField(
                choices=[("independent", "independent deals"), ("mirrored", "mirrored pairs")],
                default="independent",
                max_length=16,
            ),
        ),
        migrations.AlterField(
            model_name="match",
            name="deck_seed",
            field=arena.models.SeedField(max_length=39),
        ),
        # backwards only: runs before the column turns back into a bigint
        migrations.RunPython(migrations.RunPython.noop, narrow_seeds),
    ]
