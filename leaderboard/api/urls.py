from django.urls import include, path

from leaderboard import converters  # noqa: F401 - registers the id and botname converters
from leaderboard.api import analytics, events_urls, games, hosting, tv, views

app_name = "api"

urlpatterns = [
    path("leagues/", views.LeagueList.as_view(), name="leagues"),
    path("leagues/<slug:slug>/", views.LeagueDetail.as_view(), name="league"),
    path("leagues/<slug:slug>/standings/", views.LeagueStandings.as_view(), name="standings"),
    path("leagues/<slug:slug>/seasons/", include("leaderboard.api.seasons")),
    path("bots/", views.BotList.as_view(), name="bots"),
    path("bots/<botname:name>/", views.BotDetail.as_view(), name="bot"),
    path(
        "bots/<botname:name>/analytics/",
        analytics.BotAnalyticsView.as_view(),
        name="bot-analytics",
    ),
    path("bots/<botname:name>/token/", views.BotToken.as_view(), name="bot-token"),
    path("bots/<botname:name>/entries/", views.BotEntries.as_view(), name="bot-entries"),
    path("bots/<botname:name>/entries/<slug:slug>/", views.BotEntry.as_view(), name="bot-entry"),
    path("hosted/", hosting.HostedBots.as_view(), name="hosted-bots"),
    path("bots/<botname:name>/versions/", hosting.Versions.as_view(), name="bot-versions"),
    path(
        "bots/<botname:name>/versions/<int:number>/activate/",
        hosting.Activate.as_view(),
        name="bot-version-activate",
    ),
    path("bots/<botname:name>/tests/", hosting.VersionTests.as_view(), name="bot-tests"),
    path(
        "bots/<botname:name>/tests/<int:pk>/",
        hosting.VersionTestDetail.as_view(),
        name="bot-test",
    ),
    path("matches/", views.MatchList.as_view(), name="matches"),
    path("matches/<id:pk>/", views.MatchDetail.as_view(), name="match"),
    path("matches/<id:pk>/replay/", views.MatchReplay.as_view(), name="match-replay"),
    path("games/", games.Games.as_view(), name="games"),
    path("tv/", tv.Tv.as_view(), name="tv"),
    path("matches/<id:pk>/frames/", views.MatchFrames.as_view(), name="match-frames"),
    path("auth/token/", views.AuthToken.as_view(), name="auth-token"),
    path("me/", views.Me.as_view(), name="me"),
    path("", include("leaderboard.challenges.api_urls")),
    path("", include("leaderboard.api.notify_urls")),
    path("", include(events_urls.api)),
]
