from django.urls import path

from leaderboard import converters  # noqa: F401 - registers the botname converter
from leaderboard.challenges import views

urlpatterns = [
    path("challenges/new/", views.send, name="challenge-send"),
    path("my/challenges/", views.mine, name="my-challenges"),
    path("my/bots/<botname:name>/challenges/accept/", views.set_accepts, name="challenge-accept"),
    path("my/bots/<botname:name>/sparring/", views.spar, name="sparring"),
]
