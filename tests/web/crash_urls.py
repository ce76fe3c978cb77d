"""The site's URLs plus one that fails, to see the 500 page a visitor would get."""

from django.http import HttpRequest, HttpResponse
from django.urls import path

from config.urls import handler400, handler403, handler404, handler500, urlpatterns


def crash(request: HttpRequest) -> HttpResponse:
    raise RuntimeError("a bug in a view")


urlpatterns = [path("crash/", crash), path("api/crash/", crash), *urlpatterns]

__all__ = ["handler400", "handler403", "handler404", "handler500", "urlpatterns"]
