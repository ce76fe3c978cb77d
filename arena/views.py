from django.http import HttpRequest, JsonResponse
from django.views.decorators.cache import never_cache
from django.views.decorators.http import require_safe

from arena.health import run_checks


@never_cache
@require_safe
def healthz(request: HttpRequest) -> JsonResponse:
    """200 when every configured dependency answers, 503 otherwise (for load balancers);
    ``down`` names the dependencies that do not answer."""
    healthy, checks = run_checks()
    down = [
        name for name, check in checks.items() if isinstance(check, dict) and not check.get("ok")
    ]
    return JsonResponse(
        {"status": "ok" if healthy else "error", "down": down, "checks": checks},
        status=200 if healthy else 503,
    )
