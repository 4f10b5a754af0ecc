"""gunicorn.conf.py, read as gunicorn reads it: a name it does not know would be ignored silently."""

import runpy

from gunicorn.config import Config
from gunicorn.workers.gthread import ThreadWorker

from tute_api.settings import BASE_DIR
from tute_api.web_worker import BalancedThreadWorker


def test_every_setting_of_the_file_is_one_gunicorn_knows_and_the_worker_is_gthread_balanced(monkeypatch):
    monkeypatch.setenv("DATABASE_POOL_SIZE", "8")  # the file sets it when unset; the test's change is undone
    names = runpy.run_path(str(BASE_DIR / "gunicorn.conf.py"))
    config = Config()
    settings = {k: v for k, v in names.items() if not k.startswith("_") and k not in ("gc", "os")}
    assert set(settings) - set(config.settings) == set()
    for name, value in settings.items():
        config.set(name, value)
    assert config.worker_class is BalancedThreadWorker and config.control_socket_disable is True
    assert issubclass(BalancedThreadWorker, ThreadWorker)  # threads: a long poll holds a thread, not a process


def test_gunicorn_lets_urls_through_to_django_beyond_the_length_django_refuses_with_a_problem(monkeypatch):
    from django.conf import settings

    monkeypatch.setenv("DATABASE_POOL_SIZE", "8")
    names = runpy.run_path(str(BASE_DIR / "gunicorn.conf.py"))
    assert names["limit_request_line"] > settings.MAX_URL_LENGTH + len("GET  HTTP/1.1")
