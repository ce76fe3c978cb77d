"""The site's notification pages (included by ``leaderboard.urls``, in its namespace)."""

from django.urls import path

from leaderboard import converters, notify_views  # noqa: F401 - converters registers botname

urlpatterns = [
    path(
        "my/bots/<botname:name>/notifications/",
        notify_views.subscribe,
        name="notify-subscribe",
    ),
    path("my/notifications/secret/", notify_views.rotate_secret, name="notify-secret"),
]
