from django.contrib import admin
from django.urls import include, path
from drf_spectacular.views import SpectacularAPIView

from arena.views import healthz

urlpatterns = [
    path("healthz", healthz, name="healthz"),
    path("admin/", admin.site.urls),
    path("api/schema/", SpectacularAPIView.as_view(), name="api-schema"),
    path("", include("leaderboard.urls")),
]
