"""Which pages must type a join code (companion.app.common.gate): decided from the address the web
server saw when the page registered, never from what the browser says afterwards."""

from __future__ import annotations

import pytest

from companion.app import launch
from companion.app.common import gate


class Page:
    """What the gate reads of a Flet page (weakly referable, like the real one)."""

    def __init__(self, client_ip=None, web=True):
        self.client_ip, self.web = client_ip, web


@pytest.fixture(autouse=True)
def _env(monkeypatch):
    monkeypatch.delenv(gate.REQUIRE_CODE_ENV, raising=False)
    monkeypatch.delenv(gate.SERVED_ENV, raising=False)


def test_the_address_noted_at_registration_decides_not_the_page_patched_later():
    phone = Page("192.168.1.30")
    gate.note_client(phone)  # Flet's before_main, right after it set client_ip from the socket
    phone.client_ip, phone.web = "127.0.0.1", False  # the browser patches its page afterwards
    assert gate.is_phone(phone)
    table = Page("127.0.0.1")
    gate.note_client(table)
    assert not gate.is_phone(table)
    for local in ("::1", "::ffff:127.0.0.1"):
        p = Page(local)
        gate.note_client(p)
        assert not gate.is_phone(p)
    unknown = Page("")
    gate.note_client(unknown)
    assert gate.is_phone(unknown)


def test_require_code_makes_every_served_page_a_phone(monkeypatch):
    table = Page("127.0.0.1")
    gate.note_client(table)
    for value in ("1", "true", "yes", "on"):
        monkeypatch.setenv(gate.REQUIRE_CODE_ENV, value)
        assert gate.is_phone(table)
    for value in ("0", "", "no"):  # never looser than without it
        monkeypatch.setenv(gate.REQUIRE_CODE_ENV, value)
        assert not gate.is_phone(table)
        phone = Page("10.0.0.5")
        gate.note_client(phone)
        assert gate.is_phone(phone)


def test_pages_not_noted(monkeypatch):
    # served by `encyclopedia --web` but not noted: an unknown address, a phone, whatever it claims
    monkeypatch.setenv(gate.SERVED_ENV, "http://192.168.1.20:8550/")
    assert gate.is_phone(Page("127.0.0.1", web=False))
    monkeypatch.delenv(gate.SERVED_ENV)
    # the desktop window
    assert not gate.is_phone(Page(None, web=False))
    monkeypatch.setenv(gate.REQUIRE_CODE_ENV, "1")
    assert not gate.is_phone(Page(None, web=False))
    assert gate.is_phone(Page("127.0.0.1", web=True))


def test_the_served_app_notes_every_page():
    opts = launch.web_app_options()
    assert opts["before_main"] is gate.note_client and opts["no_cdn"] is True
