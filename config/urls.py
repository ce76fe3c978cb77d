from django.contrib import admin
from django.contrib.auth import views as auth_views
from django.templatetags.static import static
from django.urls import include, path, re_path
from django.views.generic import RedirectView
from drf_spectacular import renderers
from drf_spectacular.views import (
    SpectacularAPIView,
    SpectacularRedocView,
    SpectacularSwaggerSplitView,
)

from arena.views import healthz
from leaderboard import account_views, docs_assets, downloads, errors
from leaderboard.account_views import LoginView

FAVICON = "leaderboard/favicon.svg"
SCHEMA_RENDERERS = [
    renderers.OpenApiJsonRenderer, renderers.OpenApiJsonRenderer2,
    renderers.OpenApiYamlRenderer, renderers.OpenApiYamlRenderer2,
]  # fmt: skip

urlpatterns = [
    path("healthz", healthz, name="healthz"),
    # before the admin's own urls: its log-in, rate-limited
    path("admin/login/", account_views.admin_login),
    path("admin/", admin.site.urls),
    # JSON like every other /api/ path (?format=yaml for YAML)
    path(
        "api/schema/",
        SpectacularAPIView.as_view(renderer_classes=SCHEMA_RENDERERS),
        name="api-schema",
    ),
    # Both without inline scripts, for the Content-Security-Policy (leaderboard/csp.py):
    # Swagger UI's set-up script comes from a URL of its own (the "split" view).
    path("api/docs/", SpectacularSwaggerSplitView.as_view(url_name="api-schema"), name="api-docs"),
    path(
        "api/redoc/",
        SpectacularRedocView.as_view(url_name="api-schema", template_name="arena/redoc.html"),
        name="api-redoc",
    ),
    path("api/redoc-dist/bundles/redoc.standalone.js", docs_assets.redoc_bundle),
    path("api/", include("leaderboard.api.urls")),
    path("accounts/login/", LoginView.as_view(), name="login"),
    path("accounts/logout/", auth_views.LogoutView.as_view(), name="logout"),
    path("", include("leaderboard.urls")),
    path("downloads/agent-avenue-sdk.tar.gz", downloads.sdk_download, name="sdk-download"),
    path("favicon.ico", RedirectView.as_view(url=static(FAVICON), permanent=True)),
    # last: every unknown address gets the friendly 404 (JSON under /api/), DEBUG or not
    re_path(r"^(?P<path>.*)$", errors.not_found_anywhere),
]

# JSON under /api/, an error page elsewhere (leaderboard.errors)
handler400 = errors.bad_request
handler403 = errors.permission_denied
handler404 = errors.page_not_found
handler500 = errors.server_error
