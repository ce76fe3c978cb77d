"""The events' URLs, site and API in one place: ``site`` is included by
``leaderboard.urls``, ``api`` by ``leaderboard.api.urls``."""

from django.urls import path

from leaderboard import event_views
from leaderboard.api import events as api_events

site = [
    path("events/", event_views.events, name="events"),
    path("events/<slug:slug>/", event_views.event, name="event"),
]

api = [
    path("tournaments/", api_events.Tournaments.as_view(), name="tournaments"),
    path("tournaments/<slug:slug>/", api_events.TournamentView.as_view(), name="tournament"),
]
