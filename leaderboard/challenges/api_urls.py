from django.urls import path

from leaderboard import converters  # noqa: F401 - registers the botname converter
from leaderboard.challenges import api

urlpatterns = [
    path("challenges/", api.Challenges.as_view(), name="challenges"),
    path("bots/<botname:name>/challenges/accept/", api.Accept.as_view(), name="bot-accepts"),
    path("bots/<botname:name>/sparring/", api.Sparring.as_view(), name="bot-sparring"),
]
