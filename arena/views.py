from django.http import HttpRequest, JsonResponse
from django.views.decorators.cache import never_cache
from django.views.decorators.http import require_safe

from arena.health import run_checks


@never_cache
@require_safe
def healthz(request: HttpRequest) -> JsonResponse:
    """200 when every configured dependency answers, 503 otherwise (for load balancers)."""
    healthy, checks = run_checks()
    return JsonResponse(
        {"status": "ok" if healthy else "error", "checks": checks},
        status=200 if healthy else 503,
    )
