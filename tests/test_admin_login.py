"""The admin's login is throttled per client address and per username (tute_api/admin_login.py)."""

import pytest
from django.contrib.auth import get_user_model
from django.core.cache import cache
from django.test import Client

LOGIN = "/admin/login/"


@pytest.fixture
def client():
    """A browser whose CSRF token is right (the admin's form carries it): the throttle is the point here."""
    return Client()


@pytest.fixture
def admin_user(db):
    cache.clear()
    return get_user_model().objects.create_superuser("boss", "boss@example.com", "right-password-42")


def attempt(client, password, username="boss", address="198.51.100.7"):
    return client.post(LOGIN, {"username": username, "password": password, "next": "/admin/"}, REMOTE_ADDR=address)


def test_after_five_wrong_passwords_even_the_right_one_is_refused_with_a_problem(client, admin_user, settings):
    settings.ADMIN_LOGIN_FAILURES = 5
    for _ in range(5):
        assert attempt(client, "wrong").status_code == 200  # the form again, with its error
    refused = attempt(client, "right-password-42")
    assert refused.status_code == 429
    assert refused["Content-Type"] == "application/problem+json"
    assert refused.json()["code"] == "too_many_login_failures"
    assert 0 < int(refused["Retry-After"]) <= settings.ADMIN_LOGIN_WINDOW_SECONDS
    # the same username from another address is refused too; another username from that one is not
    assert attempt(client, "right-password-42", address="203.0.113.9").status_code == 429
    assert attempt(client, "wrong", username="other", address="203.0.113.10").status_code == 200


def test_a_successful_login_clears_the_username_count(client, admin_user, settings):
    settings.ADMIN_LOGIN_FAILURES = 3
    for _ in range(2):
        attempt(client, "wrong", address="198.51.100.1")
    assert attempt(client, "right-password-42", address="198.51.100.2").status_code == 302
    client.logout()
    for _ in range(2):
        assert attempt(client, "wrong", address="198.51.100.3").status_code == 200
    assert attempt(client, "right-password-42", address="198.51.100.4").status_code == 302


def test_the_login_page_still_shows(client, db):
    assert client.get(LOGIN).status_code == 200
