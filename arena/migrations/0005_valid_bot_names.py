"""Rename the bots whose names break the one rule (``arena.names``): names such
as ``г1`` or ``ｒ１`` made their pages answer 500, ``.`` and ``..`` collapsed URLs.

Deterministic and unique: bots in id order, each gets ``names.repaired`` of its name
(``ｒ１`` -> ``r1``, ``г1`` -> ``_1``, ``..`` -> ``bot``), with ``-<id>`` appended on a
clash with any other name. Each rename is printed. Not reversible: the old names are what
broke the pages. Replays and logs written before keep the old name.
"""

from __future__ import annotations

from typing import Any

from django.db import migrations

from arena import names


def rename_invalid(apps: Any, schema_editor: Any) -> None:
    Bot = apps.get_model("arena", "Bot")
    taken = set(Bot.objects.values_list("name", flat=True))
    for bot in Bot.objects.order_by("pk"):
        if names.is_valid(bot.name):
            continue
        taken.discard(bot.name)
        new = names.repaired(bot.name, taken, str(bot.pk))
        taken.add(new)
        print(f"\n  bot {bot.pk}: renamed {bot.name!r} to {new!r} (the bot name rule)", end="")
        Bot.objects.filter(pk=bot.pk).update(name=new)


class Migration(migrations.Migration):
    dependencies = [("arena", "0004_botversion")]

    operations = [migrations.RunPython(rename_invalid, migrations.RunPython.noop)]
