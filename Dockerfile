# The tute-api image: gunicorn by default; the same image runs the Celery worker and beat.
FROM python:3.11-slim

ENV PYTHONDONTWRITEBYTECODE=1 \
    PYTHONUNBUFFERED=1 \
    PIP_NO_CACHE_DIR=1 \
    PIP_DISABLE_PIP_VERSION_CHECK=1 \
    DJANGO_SETTINGS_MODULE=tute_api.settings \
    DEBUG=false \
    PORT=8000

WORKDIR /app

# The dependencies first (a layer that changes only with pyproject.toml); the code runs from /app.
COPY pyproject.toml ./
RUN python -c "import tomllib; print('\n'.join(tomllib.load(open('pyproject.toml', 'rb'))['project']['dependencies']))" > /tmp/requirements.txt \
    && pip install -r /tmp/requirements.txt

COPY manage.py gunicorn.conf.py ./
COPY tute_api ./tute_api
COPY games ./games
COPY players ./players
# The rules, served at /api/v1/rules (the `rule` of a problem names one of them).
COPY docs/RULES.md ./docs/RULES.md
# collectstatic needs a SECRET_KEY and a DATABASE_URL to load the settings; these only live in this
# build step (collectstatic opens no database).
RUN SECRET_KEY=collectstatic-only DATABASE_URL=sqlite:////tmp/unused.sqlite3 python manage.py collectstatic --noinput \
    && useradd --system --home-dir /app --no-create-home tute \
    && chown -R tute /app/var

USER tute
EXPOSE 8000

# gunicorn.conf.py: ASGI, WEB_CONCURRENCY uvicorn workers (one per core); waits hold no thread (docs/performance.md).
CMD ["sh", "-c", "exec gunicorn tute_api.asgi:application --bind 0.0.0.0:${PORT} --access-logfile -"]
