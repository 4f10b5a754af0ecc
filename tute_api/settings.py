"""Django settings, read from the environment (12-factor); README.md documents every variable.

A source checkout runs in development mode (``DEBUG`` on, a development ``SECRET_KEY``, SQLite
under ``var/``, Celery tasks run in process). ``DEBUG=false`` is production mode: it refuses to
start without a real ``SECRET_KEY`` and turns on the HTTPS and cookie hardening that
``manage.py check --deploy`` asks for.
"""

from pathlib import Path

import environ
from django.core.exceptions import ImproperlyConfigured
from kombu import Queue

BASE_DIR = Path(__file__).resolve().parent.parent
VAR_DIR = BASE_DIR / "var"

env = environ.Env()

DEBUG = env.bool("DEBUG", default=True)

_DEVELOPMENT_SECRET_KEY = "development-only-secret-key-never-use-it-in-production"
SECRET_KEY = env.str("SECRET_KEY", default="")
if not SECRET_KEY:
    if not DEBUG:
        raise ImproperlyConfigured("SECRET_KEY must be set when DEBUG is off.")
    SECRET_KEY = _DEVELOPMENT_SECRET_KEY
elif not DEBUG and SECRET_KEY == _DEVELOPMENT_SECRET_KEY:
    raise ImproperlyConfigured("SECRET_KEY is the development key; set a real one when DEBUG is off.")

ALLOWED_HOSTS = env.list("ALLOWED_HOSTS", default=[])
if DEBUG and not ALLOWED_HOSTS:  # a developer's devices: loopback, emulators, this machine (tute_api/hosts.py)
    from tute_api.hosts import development_hosts

    ALLOWED_HOSTS = development_hosts()
CSRF_TRUSTED_ORIGINS = env.list("CSRF_TRUSTED_ORIGINS", default=[])
# CORS (django-cors-headers): closed unless origins are listed, e.g. a web build's
# CORS_ALLOWED_ORIGINS=https://play.example.com,http://localhost:8081 (Expo web). The API takes a bearer
# token, no cookie, so no credentials are allowed; the headers clients send and read are named.
CORS_ALLOWED_ORIGINS = env.list("CORS_ALLOWED_ORIGINS", default=[])
CORS_URLS_REGEX = r"^/api/.*$"
CORS_ALLOW_CREDENTIALS = False
CORS_ALLOW_HEADERS = ["authorization", "content-type", "idempotency-key", "last-event-id", "accept"]
CORS_EXPOSE_HEADERS = ["Retry-After", "Idempotent-Replayed", "Location"]
CORS_PREFLIGHT_MAX_AGE = 86400

INSTALLED_APPS = [
    "django.contrib.admin",
    "django.contrib.auth",
    "django.contrib.contenttypes",
    "django.contrib.sessions",
    "django.contrib.messages",
    "django.contrib.staticfiles",
    "corsheaders",
    "rest_framework",
    "drf_spectacular",
    "drf_spectacular_sidecar",
    "players",
    "games.matches",
    "games.turns",
    "games.rooms",
    "games.ladder",
    "games.ratings",
    "games.lobby",
]

#: Who hears of every committed change of a match (``games.matches.news``), in order: the live
#: updates wake the waiting requests, the turn takers queue the next turn.
MATCH_LISTENERS = [
    "games.live.channels.match_news",
    "games.turns.dispatch.next_turn",
    "games.ladder.news.match_ended",
]

#: Who writes beside every change of a match (``games.matches.news``): each gives rows that the change's
#: own statement inserts, so the "your turn" message commits with the move and costs no round trip.
MATCH_RECORDERS = [
    "games.lobby.news.your_turn",
]

MIDDLEWARE = [
    # A host the service does not answer to is a problem (400 disallowed_host), not Django's HTML page.
    "tute_api.hosts.AllowedHostMiddleware",
    # CORS before anything that authenticates: a browser's preflight OPTIONS carries no token.
    "corsheaders.middleware.CorsMiddleware",
    # Steps that follow a commit (waking waiters, queuing bot turns) run after the answer is sent.
    "tute_api.after_response.AfterResponseMiddleware",
    # Django's own (named so, as manage.py check --deploy looks for them); under ASGI their hooks run in
    # the event loop rather than a thread hop each (13 per waiting request): tute_api/stock_middleware.py.
    "django.middleware.security.SecurityMiddleware",
    "django.contrib.sessions.middleware.SessionMiddleware",
    "django.middleware.common.CommonMiddleware",
    "django.middleware.csrf.CsrfViewMiddleware",
    "django.contrib.auth.middleware.AuthenticationMiddleware",
    "django.contrib.messages.middleware.MessageMiddleware",
    "django.middleware.clickjacking.XFrameOptionsMiddleware",
    # Marks a match seat connected after each authenticated call on the match (games/turns/presence.py).
    "games.turns.middleware.PresenceMiddleware",
    # With BEAT_IN_PROCESS and no broker, runs Celery beat's schedule in a thread (tute_api/beat.py).
    "tute_api.beat.InProcessBeatMiddleware",
]
if not DEBUG:
    # Under gunicorn, WhiteNoise serves the collected static files (admin, Swagger UI).
    MIDDLEWARE.insert(1, "tute_api.static.StaticFilesMiddleware")  # WhiteNoise, async-capable
# An over-long URL is a 414 problem (tute_api/errors.py), below what the server's parser takes (16 KB).
MAX_URL_LENGTH = env.int("MAX_URL_LENGTH", default=4096)
MIDDLEWARE.insert(0, "tute_api.errors.UrlTooLongMiddleware")

ROOT_URLCONF = "tute_api.urls"
WSGI_APPLICATION = "tute_api.wsgi.application"
ASGI_APPLICATION = "tute_api.asgi.application"

TEMPLATES = [
    {
        "BACKEND": "django.template.backends.django.DjangoTemplates",
        "DIRS": [],
        "APP_DIRS": True,
        "OPTIONS": {
            "context_processors": [
                "django.template.context_processors.request",
                "django.contrib.auth.context_processors.auth",
                "django.contrib.messages.context_processors.messages",
            ],
        },
    },
]

# Database: DATABASE_URL, or a SQLite file under the git-ignored var/.
if "DATABASE_URL" in env:
    DATABASES = {"default": env.db_url("DATABASE_URL")}
    if "TEST_DATABASE_NAME" in env:  # the database a test run creates and drops (default: test_<NAME>)
        DATABASES["default"]["TEST"] = {"NAME": env.str("TEST_DATABASE_NAME")}
elif not DEBUG:  # a production service on a SQLite file of its own would look ready and store nothing shared
    raise ImproperlyConfigured("DATABASE_URL must be set when DEBUG is off.")
else:
    VAR_DIR.mkdir(exist_ok=True)
    DATABASES = {"default": env.db_url_config(f"sqlite:///{VAR_DIR / 'db.sqlite3'}")}
    # A file, not memory, so a Celery worker subprocess can share the test database.
    DATABASES["default"]["TEST"] = {"NAME": str(VAR_DIR / "test.sqlite3")}
if not DATABASES["default"].get("ENGINE"):
    raise ImproperlyConfigured("DATABASE_URL is not a database URL, e.g. postgres://user:password@host:5432/tute.")
if DATABASES["default"]["ENGINE"] == "django.db.backends.postgresql":
    # libpq waits forever by default; fail within a second instead, so that a request answers 503
    # within 2 s while the database is away (a URL's ?connect_timeout= wins).
    DATABASES["default"].setdefault("OPTIONS", {}).setdefault("connect_timeout", 1)
    # Django's backend, whose transactions send their BEGIN with their first statement and a move's write
    # with their COMMIT, and whose pool (with DATABASE_POOL_SIZE) checks a connection only once it has
    # rested a second (tute_api/postgresql).
    DATABASES["default"]["ENGINE"] = "tute_api.postgresql"
elif DATABASES["default"]["ENGINE"] == "django.db.backends.sqlite3":
    # Writers take the lock when their transaction begins and wait for it, rather than failing
    # with "database is locked" halfway through (concurrent requests under make run).
    DATABASES["default"].setdefault("OPTIONS", {}).update({"transaction_mode": "IMMEDIATE", "timeout": 20})
# Seconds a server thread keeps its database connection between requests (0: one per request).
DATABASES["default"]["CONN_MAX_AGE"] = env.int("CONN_MAX_AGE", default=0)
DATABASES["default"]["CONN_HEALTH_CHECKS"] = True
# PostgreSQL only: a pool of up to this many connections per process (psycopg_pool), so that a
# request that closes its connection (a long poll while it waits) takes it back cheaply.
DATABASE_POOL_SIZE = env.int("DATABASE_POOL_SIZE", default=0)
if DATABASE_POOL_SIZE and DATABASES["default"]["ENGINE"] == "tute_api.postgresql":
    # A request waits for a connection as long as a connection may take to open: with the database
    # down it answers 503 after the same few seconds as without a pool. A connect_timeout of 0 is
    # libpq's "no limit", not the pool's "no wait": the pool's own default (30 s) stands then.
    _wait = int(DATABASES["default"]["OPTIONS"]["connect_timeout"]) or 30
    DATABASES["default"]["OPTIONS"]["pool"] = {"min_size": 1, "max_size": DATABASE_POOL_SIZE, "timeout": _wait}
    DATABASES["default"]["CONN_MAX_AGE"] = 0  # the pool keeps the connections
    # A pool that lost the database tries again after 1, 2, 4, 8… s, so after an outage of 10 s it came
    # back up to 6 s late and answered 503 meanwhile: it tries every second instead (docs/reliability.md).
    from psycopg_pool.base import AttemptWithBackoff

    AttemptWithBackoff.DELAY_BACKOFF = 1.0

# The cache holds the rate limits' counters: per process by default, shared with redis://….
CACHES = {"default": env.cache_url("CACHE_URL", default="locmemcache://")}
if CACHES["default"]["BACKEND"] == "django.core.cache.backends.redis.RedisCache":
    # One client, and one pool of connections, per process, not per request (tute_api/cache.py).
    CACHES["default"]["BACKEND"] = "tute_api.cache.RedisCache"
    # A Redis that is away fails a cache call within a second (the throttles then let requests through).
    for _option in ("socket_connect_timeout", "socket_timeout"):
        CACHES["default"].setdefault("OPTIONS", {}).setdefault(_option, 1)

DEFAULT_AUTO_FIELD = "django.db.models.BigAutoField"

AUTH_PASSWORD_VALIDATORS = [
    {"NAME": "django.contrib.auth.password_validation.UserAttributeSimilarityValidator"},
    {"NAME": "django.contrib.auth.password_validation.MinimumLengthValidator"},
    {"NAME": "django.contrib.auth.password_validation.CommonPasswordValidator"},
    {"NAME": "django.contrib.auth.password_validation.NumericPasswordValidator"},
]

LANGUAGE_CODE = "en-us"
TIME_ZONE = "UTC"
USE_I18N = True
USE_TZ = True

STATIC_URL = "static/"
STATIC_ROOT = VAR_DIR / "static"

# Security: on in production mode, each overridable from the environment.
SECURE_SSL_REDIRECT = env.bool("SECURE_SSL_REDIRECT", default=not DEBUG)
SECURE_REDIRECT_EXEMPT = [r"^healthz$", r"^readyz$"]
SECURE_HSTS_SECONDS = env.int("SECURE_HSTS_SECONDS", default=0 if DEBUG else 31_536_000)
SECURE_HSTS_INCLUDE_SUBDOMAINS = env.bool("SECURE_HSTS_INCLUDE_SUBDOMAINS", default=not DEBUG)
SECURE_HSTS_PRELOAD = env.bool("SECURE_HSTS_PRELOAD", default=not DEBUG)
SESSION_COOKIE_SECURE = not DEBUG
CSRF_COOKIE_SECURE = not DEBUG
if env.bool("USE_X_FORWARDED_PROTO", default=False):
    SECURE_PROXY_SSL_HEADER = ("HTTP_X_FORWARDED_PROTO", "https")

LOG_LEVEL = env.str("LOG_LEVEL", default="INFO")
LOGGING = {
    "version": 1,
    "disable_existing_loggers": False,
    "formatters": {"plain": {"format": "%(asctime)s %(levelname)s %(name)s: %(message)s"}},
    "handlers": {"console": {"class": "logging.StreamHandler", "formatter": "plain"}},
    "root": {"handlers": ["console"], "level": LOG_LEVEL},
    # Django's own loggers propagate to the root instead of printing a second time.
    "loggers": {"django": {"handlers": [], "level": LOG_LEVEL, "propagate": True}},
}

REST_FRAMEWORK = {
    "DEFAULT_RENDERER_CLASSES": ["tute_api.renderers.JSONRenderer"],
    "DEFAULT_PARSER_CLASSES": ["tute_api.parsers.JSONParser"],
    "DEFAULT_AUTHENTICATION_CLASSES": ["players.authentication.BearerAuthentication"],
    "DEFAULT_PERMISSION_CLASSES": ["rest_framework.permissions.IsAuthenticated"],
    "DEFAULT_THROTTLE_CLASSES": ["tute_api.throttling.AnonRateThrottle", "tute_api.throttling.PlayerRateThrottle"],
    "DEFAULT_THROTTLE_RATES": {
        # Per client address without a token; per player with one.
        "anon": env.str("THROTTLE_RATE_ANON", default="60/min"),
        "player": env.str("THROTTLE_RATE_PLAYER", default="50/s"),
    },
    # The proxies in front of the service that append to X-Forwarded-For: the limit per client
    # address takes the address the last of them saw. 0: the connection's own address (a header a
    # client writes itself is not believed).
    "NUM_PROXIES": env.int("NUM_PROXIES", default=0),
    "UNAUTHENTICATED_USER": None,
    "EXCEPTION_HANDLER": "tute_api.errors.exception_handler",
    "DEFAULT_SCHEMA_CLASS": "tute_api.schema.AutoSchema",
    # An unknown ?format= is bad input (400 naming it), not DRF's 404 (tute_api/negotiation.py).
    "DEFAULT_CONTENT_NEGOTIATION_CLASS": "tute_api.negotiation.ContentNegotiation",
}

# The largest request body: the API's are under a few kilobytes (Django's default is 2.5 MB).
DATA_UPLOAD_MAX_MEMORY_SIZE = 64 * 1024

SPECTACULAR_SETTINGS = {
    "TITLE": "tute-api",
    "DESCRIPTION": (
        "A game service for the Spanish card game Tute. Base path `/api/v1/`. "
        "Errors are RFC 9457 problem details (`application/problem+json`) with a stable `code`. "
        f"A request body is JSON of at most {DATA_UPLOAD_MAX_MEMORY_SIZE:,} bytes (else 413 `request_too_large`)."
    ),
    "VERSION": "0.1.0",
    # OpenAPI 3.1: a nullable field is a JSON Schema type with null beside it (`oneOf` with `type: "null"`
    # for a component), which strict validators and generators read as it is meant; 3.0's `nullable`
    # beside an `allOf` admits no null to them.
    "OAS_VERSION": "3.1.0",
    "SERVERS": [{"url": "/", "description": "This server (every path starts with /api/v1/)."}],
    "SERVE_INCLUDE_SCHEMA": False,
    # No "* `True` - True" lists in descriptions: an enum's values are the enum, and a field's description says
    # what they mean.
    "ENUM_GENERATE_CHOICE_DESCRIPTION": False,
    "POSTPROCESSING_HOOKS": [
        "drf_spectacular.hooks.postprocess_schema_enums",
        "tute_api.schema.require_one_of_bodies",
        "tute_api.schema.document_unsupported_media_type",
        "tute_api.schema.public_operations_take_no_token",
        "tute_api.schema.created_answers_name_what_they_created",
        "tute_api.schema.event_streams_are_text_too",
        "tute_api.schema.alternatives_required",
    ],
    # Swagger UI from the drf-spectacular-sidecar package: served from our static files, no CDN.
    "SWAGGER_UI_DIST": "SIDECAR",
    "SWAGGER_UI_FAVICON_HREF": "SIDECAR",
    "REDOC_DIST": "SIDECAR",
    # One enum per constant `type` of each action and event, and one for suits.
    "ENUM_NAME_OVERRIDES": {
        "SuitEnum": ["O", "C", "E", "B"],
        "MatchStatusEnum": ["waiting", "active", "finished", "cancelled"],
        "FallbackOutcomeEnum": ["timeout", "error", "illegal"],
        "TuteKindEnum": ["kings", "knights"],
        **{
            "".join(part.title() for part in kind.split("_")) + "TypeEnum": [kind]
            for kind in (
                "play", "bid", "pass", "choose_trump", "sing", "hand_started", "trump_chosen", "card_played",
                "trick_won", "canto", "tute", "exchange", "draw", "hand_finished", "match_finished",
                "match_cancelled", "bot_fallback", "seat_disconnected", "seat_reconnected", "turn_timed_out",
                "ratings_updated",
            )
        },
    },
    "TAGS": [
        {"name": "players", "description": "Create a player, get its token, rotate it."},
        {"name": "variants", "description": "The variants of docs/RULES.md and their options."},
        {"name": "matches", "description": "Create, join and play matches; events and records."},
        {"name": "rooms", "description": "Tables with friends: rooms, invite codes, starting matches."},
        {"name": "bots", "description": "Bots over HTTP: register, get turns by polling or by webhook, stats."},
        {"name": "ratings", "description": "Public profiles and leaderboards: Glicko-2 ratings per variant."},
    ],
}

# Tables with friends (rooms app, RULES.md M2/M3): defaults of a match's service options, in seconds.
PRESENCE_TIMEOUT = env.int("PRESENCE_TIMEOUT", default=20)  # silent this long: the seat is disconnected
RECONNECT_GRACE = env.int("RECONNECT_GRACE", default=60)  # disconnected this long: the match is cancelled
TURN_SECONDS = env.int("TURN_SECONDS", default=0) or None  # the turn clock; off by default
PRESENCE_SWEEP_SECONDS = env.float("PRESENCE_SWEEP_SECONDS", default=5.0)  # how often beat enforces them
# Server-sent events (GET /matches/{id}/stream): a connection's lifetime and its keep-alive interval.
STREAM_MAX_SECONDS = env.float("STREAM_MAX_SECONDS", default=300.0)
STREAM_KEEPALIVE_SECONDS = env.float("STREAM_KEEPALIVE_SECONDS", default=15.0)
# Long polls, event streams and WebSockets one player may hold open at once, per server process
# (games/live/slots.py); beyond, 429 too_many_connections.
LIVE_CONNECTIONS_PER_PLAYER = env.int("LIVE_CONNECTIONS_PER_PLAYER", default=10)
# Spectators of a public match (RULES.md M5): at most this many open streams and long polls of those
# who only watch, per match (games/live/watchers.py); beyond, 429 `too_many_spectators`.
SPECTATORS_PER_MATCH = env.int("SPECTATORS_PER_MATCH", default=200)

# Celery: without a broker, tasks run in process (so `make run` needs none).
CELERY_BROKER_URL = env.str("CELERY_BROKER_URL", default="") or None
CELERY_RESULT_BACKEND = env.str("CELERY_RESULT_BACKEND", default="") or None
CELERY_TASK_ALWAYS_EAGER = CELERY_BROKER_URL is None
# The queue tasks are sent to and workers consume: services that share a broker each need their own.
CELERY_TASK_DEFAULT_QUEUE = env.str("CELERY_QUEUE", default="celery")
# Calls to webhook bots wait on other servers, each up to its bot's timeout_ms (10 s at most): they
# have a queue of their own, so that workers given only it (`-Q <queue>-webhooks`; docker-compose.yml's
# `webhooks`) keep slow bots from holding up the built-in bots' turns. A worker started without -Q
# consumes both queues.
CELERY_WEBHOOK_QUEUE = f"{CELERY_TASK_DEFAULT_QUEUE}-webhooks"
CELERY_TASK_QUEUES = (Queue(CELERY_TASK_DEFAULT_QUEUE), Queue(CELERY_WEBHOOK_QUEUE))
CELERY_TASK_ROUTES = {"games.tasks.deliver_turn": {"queue": CELERY_WEBHOOK_QUEUE}}
CELERY_TASK_EAGER_PROPAGATES = True
# Celery's Django fixup closes the database connection (and, with a pool, the whole pool) around
# every task unless this is set: then a worker process keeps its connection for this many tasks,
# instead of opening a new PostgreSQL session for each bot turn.
CELERY_DB_REUSE_MAX = env.int("CELERY_DB_REUSE_MAX", default=100)
# Celery beat: queue again the bot turns that a broker outage lost (games.tasks.sweep_bot_turns).
# With no broker there is no beat; BEAT_IN_PROCESS (set by `make run`) runs this schedule in the web
# process instead (tute_api/beat.py).
BEAT_IN_PROCESS = env.bool("BEAT_IN_PROCESS", default=False)
# The built-in bots whose decision costs microseconds play where the move before them was made: inside a
# player's action or a match's start, else in the process that committed it, after its answer
# (games/turns/builtin.py); the others (level-3, level-4), in a Celery worker. Empty: every bot's turn goes
# through the broker to a worker.
BOT_LEVELS_IN_PROCESS = frozenset(env.list("BOT_LEVELS_IN_PROCESS", default=["level-1", "level-2"]))
# A bot's turn is never stranded (docs/reliability.md): a worker killed with the message, a broker away
# at the moment of queuing. Every BOT_TURNS_SWEEP_SECONDS beat queues again the bot turns idle
# BOT_TURNS_IDLE_SECONDS; a sweep message that no worker took within the period is dropped (expires).
BOT_TURNS_SWEEP_SECONDS = env.float("BOT_TURNS_SWEEP_SECONDS", default=1.0)
BOT_TURNS_IDLE_SECONDS = env.float("BOT_TURNS_IDLE_SECONDS", default=2.0)
CELERY_BEAT_SCHEDULE = {
    "sweep-bot-turns": {
        "task": "games.tasks.sweep_bot_turns",
        "schedule": BOT_TURNS_SWEEP_SECONDS,
        "options": {"expires": max(BOT_TURNS_SWEEP_SECONDS, 1.0)},
    },
    "sweep-webhook-turns": {"task": "games.tasks.sweep_webhook_turns", "schedule": 30.0},
    # Disconnect silent seats, cancel matches whose grace ran out, play expired turn clocks (M2).
    "sweep-presence": {"task": "rooms.tasks.sweep_presence", "schedule": PRESENCE_SWEEP_SECONDS},
    # Advance the ladder runs whose match ended but whose advance was lost (RULES.md L).
    "sweep-ladder-runs": {"task": "ladder.tasks.sweep_runs", "schedule": 30.0},
    "purge-idempotency-records": {"task": "games.tasks.purge_idempotency_records", "schedule": 3600.0},
    # Pair the matchmaking queue's pools (bots after the maximum wait), drop silent players (games.lobby).
    "sweep-queue": {"task": "lobby.tasks.sweep_queue", "schedule": 1.0},
}

# Play now (games.lobby): seconds a queued player waits before built-in bots fill the seats nobody
# took, and seconds without a sign of life (GET /queue/, their channel) after which they leave it.
QUEUE_MAX_WAIT_SECONDS = env.float("QUEUE_MAX_WAIT_SECONDS", default=20.0)
QUEUE_GONE_SECONDS = env.float("QUEUE_GONE_SECONDS", default=60.0)

# Seconds a server process keeps a bearer token's player instead of reading it on every request, and
# who tells every process of a token deleted (rotated, a bot retired): players/token_cache.py. Kept
# only while the process listens to the live updates' Redis; 0 reads the token every time. Longer than
# the longest long poll (MAX_WAIT_SECONDS): a waiting client's renewal finds its token kept (at 5 s, the
# renewals of 5,000 idle clients read 75 tokens a second, 6% of the server's CPU: docs/performance.md).
TOKEN_CACHE_SECONDS = env.float("TOKEN_CACHE_SECONDS", default=60.0)
TOKEN_REVOCATIONS = "games.live.channels.token_revocations"

# Hours an Idempotency-Key's first answer is kept (a retry within them gets it again); then purged.
IDEMPOTENCY_KEY_HOURS = env.int("IDEMPOTENCY_KEY_HOURS", default=24)

# Where waiting requests hear that a match moved on (games/live/channels.py): Redis pub/sub, or in process.
# Defaults to the Celery broker when that is Redis, else in process (one server process, as make run).
LIVE_UPDATES_URL = env.str(
    "LIVE_UPDATES_URL",
    default=CELERY_BROKER_URL if (CELERY_BROKER_URL or "").startswith(("redis://", "rediss://")) else "",
)
# Django Channels serves the WebSockets (tute_api/asgi.py) with no channel layer: a socket awaits its
# channel of the live updates above, as the long polls and streams do (games/live/sockets.py).

# Whoever knows a match's seed can compute every deal (C12), so by default a seeded match seats only its
# creator, built-in bots and the creator's own bots. A service that deals the same cards to humans on
# purpose (duplicate tournaments, tests) turns this on.
SEEDS_AT_SHARED_TABLES = env.bool("SEEDS_AT_SHARED_TABLES", default=False)

# Seconds /readyz waits for the broker before calling it unreachable.
HEALTH_CHECK_TIMEOUT = env.float("HEALTH_CHECK_TIMEOUT", default=2.0)

# Bots over HTTP (docs/http-bots.md): allow webhooks to private and loopback addresses (tests, a
# bot on the same machine). Off by default: a webhook URL must resolve only to public addresses.
BOT_WEBHOOK_ALLOW_PRIVATE = env.bool("BOT_WEBHOOK_ALLOW_PRIVATE", default=False)
# The ports a webhook URL may name (players/webhook_urls.py), unless private addresses are allowed.
WEBHOOK_ALLOWED_PORTS = [int(port) for port in env.list("WEBHOOK_ALLOWED_PORTS", default=["80", "443"])]
# The admin's login: this many failures per client address or per username within the window, then 429.
ADMIN_LOGIN_FAILURES = env.int("ADMIN_LOGIN_FAILURES", default=5)
ADMIN_LOGIN_WINDOW_SECONDS = env.int("ADMIN_LOGIN_WINDOW_SECONDS", default=900)
