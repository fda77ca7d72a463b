# The service's image: the API (gunicorn), the Celery worker and beat all run from it;
# docker-compose.yml picks the command. Production settings; secrets come from the
# environment at run time, never at build time.
FROM python:3.11-slim

ENV PYTHONDONTWRITEBYTECODE=1 \
    PYTHONUNBUFFERED=1 \
    PIP_NO_CACHE_DIR=1 \
    PIP_DISABLE_PIP_VERSION_CHECK=1 \
    DJANGO_SETTINGS_MODULE=euchre_service.settings_production \
    STATIC_ROOT=/app/staticfiles

WORKDIR /app

# The project and its dependencies (psycopg's binary wheel brings its own libpq).
COPY pyproject.toml README.md ./
COPY euchre_service ./euchre_service
COPY games ./games
COPY bots ./bots
RUN pip install .

# The double-dummy solver's search in C (bots/_dds.c), compiled once beside its source;
# the compiler goes again. Without it the computer players' solver runs in Python,
# about 20 times slower (docs/bots.md).
RUN apt-get update && apt-get install -y --no-install-recommends gcc libc6-dev \
    && python -c "import bots.solver as s; assert s.build_c(quiet=False)" \
    && apt-get purge -y --auto-remove gcc libc6-dev && rm -rf /var/lib/apt/lists/*

COPY manage.py ./

# Static files (admin, API docs) are collected at build time with the default settings,
# which need no secrets; the production settings use the same STATIC_ROOT.
RUN DJANGO_SETTINGS_MODULE=euchre_service.settings python manage.py collectstatic --noinput -v 0

# Run as an unprivileged user that owns nothing but what it must write (/tmp).
RUN useradd --system --uid 10001 --no-create-home --home-dir /nonexistent euchre
USER euchre

EXPOSE 8000
CMD ["gunicorn", "-c", "euchre_service/gunicorn.conf.py", "euchre_service.wsgi:application"]
