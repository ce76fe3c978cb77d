from django.contrib import admin
from django.contrib.auth import views as auth_views
from django.urls import include, path
from drf_spectacular.views import (
    SpectacularAPIView,
    SpectacularRedocView,
    SpectacularSwaggerSplitView,
)

from arena.views import healthz
from leaderboard import account_views, errors
from leaderboard.account_views import LoginView

urlpatterns = [
    path("healthz", healthz, name="healthz"),
    # before the admin's own urls: its log-in, rate-limited
    path("admin/login/", account_views.admin_login),
    path("admin/", admin.site.urls),
    path("api/schema/", SpectacularAPIView.as_view(), name="api-schema"),
    # Both without inline scripts, for the Content-Security-Policy (leaderboard/csp.py):
    # Swagger UI's set-up script comes from a URL of its own (the "split" view).
    path(
        "api/docs/", SpectacularSwaggerSplitView.as_view(url_name="api-schema"), name="api-docs"
    ),
    path(
        "api/redoc/",
        SpectacularRedocView.as_view(url_name="api-schema", template_name="arena/redoc.html"),
        name="api-redoc",
    ),
    path("api/", include("leaderboard.api.urls")),
    path("accounts/login/", LoginView.as_view(), name="login"),
    path("accounts/logout/", auth_views.LogoutView.as_view(), name="logout"),
    path("", include("leaderboard.urls")),
]

# JSON under /api/, an error page elsewhere (leaderboard.errors)
handler400 = errors.bad_request
handler403 = errors.permission_denied
handler404 = errors.page_not_found
handler500 = errors.server_error
