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

    from tute_api.serving import Worker

    assert config.worker_class is Worker and issubclass(Worker, UvicornWorker)  # ASGI: waits hold no thread
    assert config.control_socket_disable is True


def test_a_busy_worker_is_not_taken_for_a_stuck_one(monkeypatch):
    """A uvicorn worker tells the arbiter it lives from its event loop's ticks, every ``timeout / 2``
    seconds: with gunicorn's 30 s a loop that was only slow (1,250 open connections on a busy box) was
    killed with every connection it held. The arbiter waits long enough for a busy loop's late tick."""
    monkeypatch.setenv("DATABASE_POOL_SIZE", "8")
    monkeypatch.setenv("ASGI_THREADS", "8")
    names = runpy.run_path(str(BASE_DIR / "gunicorn.conf.py"))
    config = Config()
    config.set("timeout", names["timeout"])
    assert config.timeout >= 120 > config.keepalive


def test_a_worker_collects_its_garbage_less_often_than_python_by_default(monkeypatch):
    """Thousands of open connections make every collection long, and requests leave no garbage cycle
    (tests/test_cycles.py): a worker's young generation is 200,000 objects (docs/performance.md);
    ``GC_THRESHOLDS`` sets it otherwise."""
    import gc

    before = gc.get_threshold()
    monkeypatch.setenv("DATABASE_POOL_SIZE", "8")
    monkeypatch.setenv("ASGI_THREADS", "8")
    try:
        monkeypatch.delenv("GC_THRESHOLDS", raising=False)
        runpy.run_path(str(BASE_DIR / "gunicorn.conf.py"))["post_worker_init"](None)
        assert gc.get_threshold() == (200_000, 10, 10)
        gc.unfreeze()
        monkeypatch.setenv("GC_THRESHOLDS", "1000,10,10")
        runpy.run_path(str(BASE_DIR / "gunicorn.conf.py"))["post_worker_init"](None)
        assert gc.get_threshold() == (1000, 10, 10)
    finally:
        gc.unfreeze()
        gc.set_threshold(*before)
