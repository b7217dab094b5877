"""Shared pytest fixtures."""

from __future__ import annotations

import pytest

from xmo.context import make_context


@pytest.fixture
def ctx():
    """A fresh xmo context (its own weight store)."""
    return make_context()
