"""The API's notification endpoints (included by ``leaderboard.api.urls``)."""

from django.urls import path

from leaderboard import converters  # noqa: F401 - registers the botname converter
from leaderboard.api import notify

urlpatterns = [
    path(
        "bots/<botname:name>/notifications/",
        notify.BotNotifications.as_view(),
        name="bot-notifications",
    ),
    path("notifications/secret/", notify.NotifySecret.as_view(), name="notify-secret"),
]
