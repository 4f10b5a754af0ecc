from django.urls import path

from . import apis

urlpatterns = [
    path("queue/", apis.QueueApi.as_view(), name="queue"),
    path("tables/", apis.TablesApi.as_view(), name="tables"),
    path("tables/open", apis.OpenTablesApi.as_view(), name="tables-open"),
    path("tables/<uuid:match_id>/seat", apis.TableSeatApi.as_view(), name="table-seat"),
    path("me/notices", apis.MyNoticesApi.as_async_view(), name="me-notices"),
    path("me/notices/stream", apis.MyNoticesStreamApi.as_async_view(), name="me-notices-stream"),
]
