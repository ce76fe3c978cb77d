"""The season pages, included under ``leagues/<slug>/seasons/`` (leaderboard.urls)."""

from django.urls import path

from leaderboard import season_views

urlpatterns = [
    path("", season_views.seasons, name="seasons"),
    path("<int:number>/", season_views.season, name="season"),
]
