"""The shared tool check: a missing tool skips a test, or fails it when CI demands every tool."""

from __future__ import annotations

import pytest

MISSING = "bib-no-such-tool"


def test_missing_tool_skips(require, monkeypatch):
    monkeypatch.delenv("BIB_REQUIRE_TOOLCHAINS", raising=False)
    with pytest.raises(pytest.skip.Exception, match=f"not on PATH: {MISSING}"):
        require("sh", MISSING)


def test_missing_tool_fails_when_toolchains_are_required(require, monkeypatch):
    monkeypatch.setenv("BIB_REQUIRE_TOOLCHAINS", "1")
    with pytest.raises(
        pytest.fail.Exception, match=f"BIB_REQUIRE_TOOLCHAINS=1 but not on PATH: {MISSING}"
    ):
        require(MISSING)


def test_present_tools_pass(require):
    require("sh")


def test_unavailable_names_its_reason(unavailable, monkeypatch):
    monkeypatch.setenv("BIB_REQUIRE_TOOLCHAINS", "1")
    with pytest.raises(pytest.fail.Exception, match="pandoc too old"):
        unavailable("pandoc too old")
