"""docker-compose.yml, checked without Docker: the services, their health checks and environment."""

import os
import re
from typing import Any

import pytest
import yaml

from tute_api.settings import BASE_DIR

APP_SERVICES = ("web", "worker", "webhooks", "beat")
APP_ENVIRONMENT = ("DEBUG", "SECRET_KEY", "ALLOWED_HOSTS", "DATABASE_URL", "CELERY_BROKER_URL")


@pytest.fixture(scope="module")
def services() -> dict[str, Any]:
    with (BASE_DIR / "docker-compose.yml").open() as f:
        return yaml.safe_load(f)["services"]


def test_the_stack_has_its_services(services):
    assert {"postgres", "redis", "web", "worker", "webhooks", "beat"} <= set(services)


@pytest.mark.parametrize("name", ["postgres", "redis", "web", "worker", "webhooks", "beat"])
def test_each_long_running_service_has_a_health_check(services, name):
    healthcheck = services[name]["healthcheck"]
    assert healthcheck["test"][0] in ("CMD", "CMD-SHELL")
    assert healthcheck["interval"] and healthcheck["retries"]


@pytest.mark.parametrize("name", APP_SERVICES)
def test_app_services_are_configured_for_production(services, name):
    service = services[name]
    environment = service["environment"]
    assert set(APP_ENVIRONMENT) <= set(environment)
    assert environment["DEBUG"] == "false"
    assert environment["DATABASE_URL"].startswith("postgres://")
    assert environment["DATABASE_URL"].split("@")[1].startswith("postgres:")
    assert environment["CELERY_BROKER_URL"].startswith("redis://redis:")
    assert environment["CACHE_URL"].startswith("redis://redis:"), "rate limits counted across server processes"
    assert re.fullmatch(r"\$\{SECRET_KEY:\?.+\}", environment["SECRET_KEY"]), "never a fixed key"
    assert service["build"] == "."
    assert service["depends_on"]["migrate"]["condition"] == "service_completed_successfully"


def test_web_runs_gunicorn_from_the_image_and_checks_readiness(services):
    web = services["web"]
    assert "command" not in web  # the Dockerfile's CMD: gunicorn
    assert "8000:8000" in web["ports"]
    assert "/readyz" in " ".join(web["healthcheck"]["test"])
    dockerfile = (BASE_DIR / "Dockerfile").read_text()
    assert "gunicorn tute_api.asgi:application" in dockerfile


def test_worker_and_beat_run_celery(services):
    assert services["worker"]["command"][:4] == ["celery", "-A", "tute_api", "worker"]
    assert services["beat"]["command"][:4] == ["celery", "-A", "tute_api", "beat"]


def test_the_webhook_calls_have_workers_of_their_own(services):
    """Every queue has a worker, and the webhooks' queue only its own (its calls wait on other servers)."""

    def queues(name: str) -> str:
        command = services[name]["command"]
        return command[command.index("-Q") + 1]

    default = services["worker"]["environment"].get("CELERY_QUEUE", "celery")  # as tute_api/settings.py names them
    assert queues("worker") == default
    assert queues("webhooks") == f"{default}-webhooks"


def test_migrations_run_once_before_the_app(services):
    migrate = services["migrate"]
    assert migrate["command"] == ["python", "manage.py", "migrate", "--noinput"]
    assert migrate["depends_on"]["postgres"]["condition"] == "service_healthy"


def test_the_image_holds_every_app_of_the_project():
    from django.conf import settings

    dockerfile = (BASE_DIR / "Dockerfile").read_text()
    ours = [app for app in settings.INSTALLED_APPS if (BASE_DIR / app.split(".")[0]).is_dir()]
    assert ours, "the project's own apps are in INSTALLED_APPS"
    for app in ours:
        package = app.split(".")[0]
        assert f"COPY {package} ./{package}" in dockerfile, f"{package} is not copied into the image"
    for source in re.findall(r"^COPY (\S+) \S+$", dockerfile, re.M):
        assert (BASE_DIR / source).exists(), f"the image copies {source}, which the checkout does not have"


def test_the_image_serves_with_threads_so_that_long_polls_do_not_block_it(monkeypatch):
    import runpy

    dockerfile = (BASE_DIR / "Dockerfile").read_text()
    assert "gunicorn.conf.py" in dockerfile.split("COPY manage.py", 1)[1].splitlines()[0]
    command = dockerfile.split("CMD ", 1)[1]
    assert "--worker-class" not in command and "--workers" not in command, "gunicorn.conf.py decides"
    monkeypatch.delenv("WEB_CONCURRENCY", raising=False)
    monkeypatch.delenv("WEB_THREADS", raising=False)
    monkeypatch.delenv("DATABASE_POOL_SIZE", raising=False)  # the file sets it; restored after the test
    monkeypatch.delenv("ASGI_THREADS", raising=False)
    config = runpy.run_path(str(BASE_DIR / "gunicorn.conf.py"))
    assert config["worker_class"] == "tute_api.serving.Worker"  # ASGI (uvicorn's): waits hold no thread
    assert config["workers"] == max(2, len(os.sched_getaffinity(0))) and "threads" not in config  # one per core
    # Two threads per process for the requests that do not wait, a pool to match (docs/performance.md: eight
    # fought over the cores); set in the environment, where tute_api/threads.py and the settings read them.
    assert (os.environ["ASGI_THREADS"], os.environ["DATABASE_POOL_SIZE"]) == ("2", "6")
    import gc

    config["post_worker_init"](None)  # a worker that loaded the app: the collector leaves its objects alone
    try:
        assert gc.get_freeze_count() > 0
    finally:
        gc.unfreeze()
