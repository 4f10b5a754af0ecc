"""The API's one way to page a list: ``?page=`` and ``?page_size=``, and the page's shape in the schema."""

from __future__ import annotations

import copy

from rest_framework import serializers
from rest_framework.pagination import PageNumberPagination

#: The highest ``?page=`` any list takes (the largest PostgreSQL integer): beyond, a 400 rather than an
#: offset the database cannot take (the schema fuzzing met one: a 500).
MAX_PAGE = 2**31 - 1


class Pagination(PageNumberPagination):
    page_size = 20
    page_size_query_param = "page_size"
    max_page_size = 100


def page_of(name: str, results: serializers.Serializer) -> type[serializers.Serializer]:
    """The serializer of a page of ``results`` (``many=True``), named ``name`` in the schema."""
    fields = {
        "count": serializers.IntegerField(),
        "next": serializers.URLField(allow_null=True),
        "previous": serializers.URLField(allow_null=True),
        "results": copy.deepcopy(results),  # a copy made now: DRF orders fields by when they were made
    }
    return type(name, (serializers.Serializer,), fields)
