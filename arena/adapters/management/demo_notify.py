"""The demo's notifications (issue 25 §6): the owner account is told of its bot's events
by e-mail, which the console backend of embedded mode prints in the demo's output; the
delivery log is on the bot's My bot page."""

from __future__ import annotations

from django.conf import settings
from django.contrib.auth import get_user_model
from django.core.management.base import OutputWrapper

from arena.models import Bot
from arena.notify.models import Channel, EventKind, Subscription
from arena.notify.subscriptions import do_subscribe

#: given to the demo's owner account when it has no address, so that e-mail can go to it
DEMO_EMAIL = "admin@localhost"


def subscribe_owner(bot_name: str, username: str, stdout: OutputWrapper) -> None:
    """Subscribe ``username`` to every event of ``bot_name`` by e-mail (once: a
    subscription the owner changed since is left as it is)."""
    user = get_user_model().objects.filter(username=username).first()
    bot = Bot.objects.filter(name=bot_name, owner=user).first()
    if user is None or bot is None:
        return
    if not user.email:
        user.email = DEMO_EMAIL
        user.save(update_fields=["email"])
    if not Subscription.objects.filter(bot=bot, channel=Channel.EMAIL).exists():
        do_subscribe(user, bot, Channel.EMAIL, [k.value for k in EventKind])
    backend = settings.EMAIL_BACKEND.rsplit(".", 2)[-2]
    stdout.write(
        f"notifications: {username} <{user.email}> is told of {bot_name}'s events by e-mail "
        f"({backend} backend: printed here). Enter {bot_name} in a league without running it "
        f"and its no-show arrives; the delivery log is at /my/bots/{bot_name}/#notifications"
    )
