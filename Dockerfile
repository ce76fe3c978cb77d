# One image for every process of the arena (web, gateway, worker, beat, migrate);
# docker-compose.yml picks the command. Installs exactly the versions in requirements.lock.

# The rules core compiled with mypyc, in place beside its sources as `make install` builds
# it (referee/_selection.py runs it): a stage of its own, so that the C compiler stays out
# of the image.
FROM python:3.11-slim AS engine
RUN apt-get update && apt-get install -y --no-install-recommends gcc libc6-dev \
    && rm -rf /var/lib/apt/lists/*
WORKDIR /build
COPY requirements.lock ./
COPY referee ./referee
RUN python -m pip install --no-cache-dir -c requirements.lock mypy setuptools \
    && cd referee && AVENUE_ENGINE_COMPILE=1 python setup.py -q build_ext --inplace \
    && rm -rf build && ls *.so _compiled.json

FROM python:3.11-slim

ENV PYTHONDONTWRITEBYTECODE=1 \
    PYTHONUNBUFFERED=1 \
    PIP_NO_CACHE_DIR=1 \
    PIP_DISABLE_PIP_VERSION_CHECK=1 \
    PYTHONPATH=/app

WORKDIR /app

# The bot host's sandbox (bwrap) and the uid switch inside it (setpriv, util-linux).
RUN apt-get update && apt-get install -y --no-install-recommends bubblewrap util-linux libseccomp2 \
    && rm -rf /var/lib/apt/lists/*

# Dependencies first, so a code change does not reinstall them.
COPY requirements.lock pyproject.toml ./
# ./sdk depends on the engine by a relative file: URL (../referee), so both are copied.
COPY referee ./referee
COPY sdk ./sdk
RUN python -c "import tomllib; print(chr(10).join(tomllib.load(open('pyproject.toml', 'rb'))['project']['dependencies']))" > /tmp/runtime-requirements.txt \
    && python -m pip install -c requirements.lock -r /tmp/runtime-requirements.txt ./sdk

COPY . .
# every process plays with the compiled engine (its log and `manage.py demo` say which)
COPY --from=engine /build/referee/*.so /build/referee/_compiled.json ./referee/

# Static files are served by WhiteNoise from var/static; collected at build time.
RUN DEBUG=0 SECRET_KEY=collectstatic-only python manage.py collectstatic --noinput \
    && useradd --create-home --uid 10001 arena \
    && chown -R arena:arena /app/var

USER arena

EXPOSE 8000 50051

CMD ["gunicorn", "config.wsgi", "--bind", "0.0.0.0:8000", "--workers", "3", "--access-logfile", "-"]
