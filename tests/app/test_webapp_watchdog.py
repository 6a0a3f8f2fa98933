"""The browser tests' own safety net: a Playwright call that never returns (``page.evaluate``
has no timeout; a page whose script never yields never answers it) ends when ``webapp.browser``
kills its Chromium after ``limit_s``, as a failure that says so, instead of hanging the run
(CI once stopped at its 90-minute limit inside a browser test)."""

from __future__ import annotations

import time

import pytest

import webapp  # tests/app/webapp.py

pytestmark = webapp.e2e_marks()


def test_a_hung_browser_call_fails_after_the_limit_instead_of_hanging():
    start = time.monotonic()
    with pytest.raises(AssertionError, match=r"ran past 5 s: its Chromium was killed"):
        with webapp.browser(limit_s=5) as ctx:
            user_dir = ctx.enc_user_dir
            assert webapp.chromium_pids(user_dir)  # the check below can see its processes
            page = ctx.new_page()
            page.set_content("<p>busy</p>")
            page.evaluate("() => { for (;;) {} }")  # never answers
    took = time.monotonic() - start
    assert took < 60, took
    time.sleep(0.5)  # killed processes end (a zombie's command line is empty: it is not listed)
    assert not webapp.chromium_pids(user_dir), "a process of the killed Chromium outlived its test"


def test_a_browser_that_finishes_in_time_is_closed_and_not_killed():
    with webapp.browser(limit_s=120) as ctx:
        page = ctx.new_page()
        page.set_content("<p>quick</p>")
        assert page.evaluate("() => document.body.innerText") == "quick"
        user_dir = ctx.enc_user_dir
    time.sleep(0.5)
    assert not webapp.chromium_pids(user_dir)

