from django.urls import include, path

from leaderboard import (  # noqa: F401 - converters registers the path converters
    account_views,
    converters,
    embed_views,
    gamedb_views,
    hosting_views,
    live_stream,
    tv_views,
    views,
)
from leaderboard.api import events_urls

app_name = "leaderboard"

urlpatterns = [
    path("", views.home, name="home"),
    path("leagues/", views.leagues, name="leagues"),
    path("", include(events_urls.site)),
    path("leagues/<slug:slug>/", views.league, name="league"),
    path("leagues/<slug:slug>/seasons/", include("leaderboard.season_urls")),
    path("leagues/<slug:slug>/games/<str:name>", gamedb_views.archive, name="game-archive"),
    path(
        "leagues/<slug:slug>/h2h/<botname:name>/<botname:opponent>/",
        views.head_to_head,
        name="h2h",
    ),
    path("bots/", views.bots, name="bots"),
    path("bots/<botname:name>/", views.bot, name="bot"),
    path("bots/<botname:name>/tv/", tv_views.bot_tv, name="bot-tv"),
    path("tv/", tv_views.tv, name="tv"),
    path("matches/", views.matches, name="matches"),
    path("rules/", views.rules, name="rules"),
    path("matches/<id:pk>/", views.match, name="match"),
    path("matches/<id:pk>/live/", live_stream.live_events, name="match-live"),
    path("matches/<id:pk>/embed/", embed_views.embed, name="match-embed"),
    path("oembed/", embed_views.oembed, name="oembed"),
    path("accounts/signup/", account_views.signup, name="signup"),
    path("my/bots/", account_views.my_bots, name="my-bots"),
    path("my/api-key/", account_views.api_key, name="api-key"),
    path("my/bots/<botname:name>/", account_views.my_bot, name="my-bot"),
    path("my/bots/<botname:name>/rotate/", account_views.rotate, name="rotate"),
    path("my/bots/<botname:name>/revoke/", account_views.revoke, name="revoke"),
    path("my/bots/<botname:name>/enter/", account_views.enter, name="enter"),
    path("my/bots/<botname:name>/leave/", account_views.leave, name="leave"),
    path("my/hosted/", hosting_views.create_hosted, name="create-hosted"),
    path("my/bots/<botname:name>/upload/", hosting_views.upload, name="upload"),
    path(
        "my/bots/<botname:name>/versions/<int:number>/activate/",
        hosting_views.activate,
        name="activate-version",
    ),
    path("my/bots/<botname:name>/tests/", hosting_views.start_test, name="start-test"),
    path("my/bots/<botname:name>/tests/<int:pk>/", hosting_views.test_page, name="version-test"),
    path("", include("leaderboard.challenges.urls")),
    path("", include("leaderboard.notify_urls")),
]
