"""Settings come from the environment; production mode passes ``manage.py check --deploy``."""

import os
import secrets
import subprocess
import sys

import pytest
from django.conf import settings

from tute_api.settings import BASE_DIR

CONFIG_VARIABLES = (
    "DEBUG", "SECRET_KEY", "ALLOWED_HOSTS", "CSRF_TRUSTED_ORIGINS", "DATABASE_URL",
    "CELERY_BROKER_URL", "CELERY_RESULT_BACKEND", "SECURE_SSL_REDIRECT", "SECURE_HSTS_SECONDS",
    "SECURE_HSTS_INCLUDE_SUBDOMAINS", "SECURE_HSTS_PRELOAD", "USE_X_FORWARDED_PROTO", "LOG_LEVEL",
    "HEALTH_CHECK_TIMEOUT", "TEST_DATABASE_NAME", "CELERY_QUEUE", "DATABASE_POOL_SIZE",
)  # fmt: skip


def run_django(*args: str, **config: str) -> subprocess.CompletedProcess[str]:
    """Run ``python <args>`` in the project with only ``config`` as the service's environment."""
    env = {k: v for k, v in os.environ.items() if k not in CONFIG_VARIABLES}
    env |= {"DJANGO_SETTINGS_MODULE": "tute_api.settings", **config}
    return subprocess.run([sys.executable, *args], cwd=BASE_DIR, env=env, capture_output=True, text=True, timeout=60)


def production_env() -> dict[str, str]:
    return {
        "DEBUG": "false",
        "SECRET_KEY": secrets.token_urlsafe(50),
        "ALLOWED_HOSTS": "tute.example.com",
        "DATABASE_URL": "sqlite:////tmp/tute-api-deploy-check.sqlite3",
        "CELERY_BROKER_URL": "redis://127.0.0.1:6379/0",
    }


def print_setting(expression: str, **config: str) -> str:
    code = f"import django; django.setup(); from django.conf import settings; print(repr(({expression})))"
    result = run_django("-c", code, **config)
    assert result.returncode == 0, result.stderr
    return result.stdout.strip()


def test_production_mode_passes_check_deploy_with_no_warnings():
    result = run_django("manage.py", "check", "--deploy", "--fail-level", "WARNING", **production_env())
    assert result.returncode == 0, result.stdout + result.stderr
    assert "System check identified no issues" in result.stdout
    assert "WARNING" not in result.stdout + result.stderr
    assert "ERROR" not in result.stdout + result.stderr


def test_check_deploy_warns_of_a_production_service_without_a_broker():
    env = production_env()
    del env["CELERY_BROKER_URL"]
    result = run_django("manage.py", "check", "--deploy", "--fail-level", "WARNING", **env)
    assert result.returncode != 0
    assert "tute.W001" in result.stdout + result.stderr


@pytest.mark.parametrize("variable", ["SECRET_KEY", "DATABASE_URL"])
def test_production_mode_refuses_to_start_without_a_secret_key_or_a_database_url(variable: str):
    """Without a DATABASE_URL it would serve from a SQLite file of its own, which nobody migrated."""
    env = production_env()
    del env[variable]
    result = run_django("manage.py", "check", **env)
    assert result.returncode != 0
    assert f"{variable} must be set when DEBUG is off" in result.stderr


def test_production_mode_refuses_the_development_secret_key():
    from tute_api import settings as project_settings

    env = production_env() | {"SECRET_KEY": project_settings._DEVELOPMENT_SECRET_KEY}
    result = run_django("manage.py", "check", **env)
    assert result.returncode != 0
    assert "SECRET_KEY is the development key" in result.stderr


def test_a_database_url_that_names_no_database_is_refused_at_start():
    for url in ("", "postgres//host/tute"):
        result = run_django("manage.py", "check", DATABASE_URL=url)
        assert result.returncode != 0
        assert "DATABASE_URL is not a database URL" in result.stderr


def test_with_a_pool_a_request_waits_for_a_connection_no_longer_than_one_takes_to_open():
    expression = "settings.DATABASES['default']['OPTIONS']['pool']['timeout']"
    config = {"DATABASE_URL": "postgres://tute@db.example:5432/tute", "DATABASE_POOL_SIZE": "4"}
    assert print_setting(expression, **config) == "1"
    assert print_setting(expression, **config | {"DATABASE_URL": config["DATABASE_URL"] + "?connect_timeout=2"}) == "2"
    # libpq's 0 is "no limit"; the pool's 0 would fail every request at once
    assert print_setting(expression, **config | {"DATABASE_URL": config["DATABASE_URL"] + "?connect_timeout=0"}) == "30"


def test_defaults_are_development_sqlite_under_var_and_eager_tasks():
    expression = (
        "settings.DEBUG, settings.DATABASES['default']['NAME'], "
        "settings.CELERY_TASK_ALWAYS_EAGER, settings.ALLOWED_HOSTS"
    )
    from tute_api.hosts import development_hosts

    development = development_hosts()  # loopback, the emulators' aliases, this machine (tute_api/hosts.py)
    assert print_setting(expression) == repr((True, str(BASE_DIR / "var" / "db.sqlite3"), True, development))


def test_database_url_and_broker_url_are_read_from_the_environment():
    expression = (
        "settings.DATABASES['default']['ENGINE'], settings.DATABASES['default']['NAME'], "
        "settings.CELERY_BROKER_URL, settings.CELERY_TASK_ALWAYS_EAGER"
    )
    config = {
        "DATABASE_URL": "postgres://tute@db.example:5432/tute",
        "CELERY_BROKER_URL": "redis://broker.example:6379/0",
    }
    assert print_setting(expression, **config) == repr(
        ("tute_api.postgresql", "tute", "redis://broker.example:6379/0", False)
    )


def test_a_test_run_can_have_a_database_and_a_queue_of_its_own():
    """So that two test runs on one machine (.ci/run sets both per run) share neither."""
    expression = (
        "settings.DATABASES['default']['TEST'].get('NAME'), settings.CELERY_TASK_DEFAULT_QUEUE, "
        "settings.CELERY_WEBHOOK_QUEUE"
    )
    config = {"DATABASE_URL": "postgres://tute@db.example:5432/tute", "CELERY_BROKER_URL": "redis://b.example/0"}
    assert print_setting(expression, **config) == repr((None, "celery", "celery-webhooks"))
    config |= {"TEST_DATABASE_NAME": "test_run_7", "CELERY_QUEUE": "run-7"}
    assert print_setting(expression, **config) == repr(("test_run_7", "run-7", "run-7-webhooks"))


def test_the_test_run_uses_a_json_only_api():
    rest = settings.REST_FRAMEWORK
    assert rest["DEFAULT_RENDERER_CLASSES"] == ["tute_api.renderers.JSONRenderer"]
    assert rest["DEFAULT_PARSER_CLASSES"] == ["tute_api.parsers.JSONParser"]


def test_webhook_calls_go_to_their_own_queue_which_a_worker_without_q_consumes_too(settings):
    from tute_api.celery import app

    def queue(task: str) -> str:
        return str(app.amqp.router.route({}, task)["queue"].name)

    assert queue("games.tasks.deliver_turn") == settings.CELERY_WEBHOOK_QUEUE
    default = settings.CELERY_TASK_DEFAULT_QUEUE
    assert queue("games.tasks.play_bot_turns") == queue("rooms.tasks.sweep_presence") == default
    assert set(app.amqp.queues) == {settings.CELERY_TASK_DEFAULT_QUEUE, settings.CELERY_WEBHOOK_QUEUE}


def test_every_app_of_the_project_is_in_the_package():
    """An install outside the checkout (a wheel, or django.setup() from another directory) has them all."""
    import fnmatch
    import tomllib

    project = tomllib.loads((BASE_DIR / "pyproject.toml").read_text())
    include = project["tool"]["setuptools"]["packages"]["find"]["include"]
    local = {app.split(".")[0] for app in settings.INSTALLED_APPS if (BASE_DIR / app.split(".")[0]).is_dir()}
    assert local >= {"games", "players"}
    assert all(any(fnmatch.fnmatch(app, pattern) for pattern in include) for app in local), (local, include)


def test_postgresql_and_a_redis_cache_give_up_within_a_second_when_away():
    expression = (
        "settings.DATABASES['default']['OPTIONS']['connect_timeout'], "
        "settings.CACHES['default']['OPTIONS']['socket_connect_timeout'], "
        "settings.CACHES['default']['OPTIONS']['socket_timeout']"
    )
    config = {"DATABASE_URL": "postgres://tute@db.example:5432/tute", "CACHE_URL": "redis://cache.example:6379/2"}
    assert print_setting(expression, **config) == "(1, 1, 1)"


def test_a_redis_cache_url_takes_the_cache_that_shares_its_connections_in_the_process():
    config = {"DATABASE_URL": "postgres://tute@db.example:5432/tute", "CACHE_URL": "redis://cache.example:6379/2"}
    assert print_setting("settings.CACHES['default']['BACKEND']", **config) == "'tute_api.cache.RedisCache'"
