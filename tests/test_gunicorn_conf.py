"""gunicorn.conf.py, read as gunicorn reads it: a name it does not know would be ignored silently."""

import runpy

from gunicorn.config import Config

from tute_api.settings import BASE_DIR


def test_every_setting_of_the_file_is_one_gunicorn_knows_and_the_worker_is_uvicorns(monkeypatch):
    monkeypatch.setenv("DATABASE_POOL_SIZE", "8")
    monkeypatch.setenv("ASGI_THREADS", "8")  # the file sets it when unset; the test's change is undone
    names = runpy.run_path(str(BASE_DIR / "gunicorn.conf.py"))
    config = Config()
    settings = {k: v for k, v in names.items() if not k.startswith("_") and k not in ("gc", "os")}
    assert set(settings) - set(config.settings) == set()
    for name, value in settings.items():
        config.set(name, value)
    from uvicorn_worker import UvicornWorker

    assert config.worker_class is UvicornWorker and config.control_socket_disable is True  # ASGI: waits hold no thread
