"""The sockets' channel layer (games/live/layers.py): a storm of sockets joining their groups at once waits
for the process's few Redis connections instead of failing (channels-redis's own pool refuses at once)."""

from __future__ import annotations

import asyncio
import uuid

import pytest
from asgiref.sync import async_to_sync
from channels_redis.core import RedisChannelLayer as ChannelsRedisLayer
from redis.exceptions import MaxConnectionsError

from games.live.layers import RedisChannelLayer
from tests import services

STORM = 300  # sockets joining at once
CONNECTIONS = 5  # the process's connections to Redis


def _storm(layer: ChannelsRedisLayer) -> None:
    prefix = f"test-layers-{uuid.uuid4().hex[:8]}"

    async def run() -> None:
        try:
            await asyncio.gather(*(layer.group_add(f"{prefix}.{n % 10}", f"{prefix}.socket{n}") for n in range(STORM)))
        finally:
            await layer.flush()
            await layer.close_pools()

    async_to_sync(run)()


def _hosts() -> list[dict[str, object]]:
    return [{"address": services.redis_url(), "max_connections": CONNECTIONS, "timeout": 10}]


def test_a_storm_of_sockets_waits_for_the_layer_s_connections() -> None:
    _storm(RedisChannelLayer(hosts=_hosts(), prefix=f"test-{uuid.uuid4().hex[:6]}"))


def test_channels_redis_s_own_pool_refuses_the_same_storm() -> None:
    hosts = [{k: v for k, v in host.items() if k != "timeout"} for host in _hosts()]
    with pytest.raises(MaxConnectionsError):
        _storm(ChannelsRedisLayer(hosts=hosts, prefix=f"test-{uuid.uuid4().hex[:6]}"))
