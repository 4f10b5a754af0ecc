"""The channel layer that carries a match's news to its WebSockets: channels-redis, with a pool that waits.

channels-redis takes its connections from redis-py's ``ConnectionPool``, which refuses at once
(``MaxConnectionsError``) when its 100 connections are out. A deploy's reconnect storm (every socket of a
server joining its match's group at once) then failed hundreds of sockets with 4503 under ``make loadtest
--idle 5000``. This layer's pool is a ``BlockingConnectionPool``: a socket waits its turn for a connection
(``timeout`` seconds at most, then 4503) and the process never holds more than ``max_connections``.
"""

from __future__ import annotations

from typing import Any

from channels_redis.core import RedisChannelLayer as ChannelsRedisLayer
from redis.asyncio import BlockingConnectionPool


class RedisChannelLayer(ChannelsRedisLayer):  # type: ignore[misc]
    def create_pool(self, index: int) -> Any:
        host = dict(self.hosts[index])
        return BlockingConnectionPool.from_url(host.pop("address"), **host)
