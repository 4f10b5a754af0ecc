from django.urls import path

from . import apis

urlpatterns = [
    path("rooms/", apis.RoomsApi.as_view(), name="rooms"),
    path("rooms/join", apis.RoomJoinApi.as_view(), name="room-join"),
    path("rooms/<uuid:room_id>", apis.RoomDetailApi.as_view(), name="room"),
    path("rooms/<uuid:room_id>/join", apis.RoomJoinOpenApi.as_view(), name="room-join-open"),
    path("rooms/<uuid:room_id>/start", apis.RoomStartApi.as_view(), name="room-start"),
    path("rooms/<uuid:room_id>/leave", apis.RoomLeaveApi.as_view(), name="room-leave"),
    path("rooms/<uuid:room_id>/members/<uuid:player_id>", apis.RoomMemberApi.as_view(), name="room-member"),
]
