"""Assertions shared by the provider tests in this folder."""

from __future__ import annotations

import json
from typing import Any

import respx


def sent_json(route: respx.Route, index: int = -1) -> Any:
    return json.loads(route.calls[index].request.content)


def assert_no_secret(envelope: dict[str, Any], secret: str) -> None:
    assert secret not in json.dumps(envelope)


def assert_failure(envelope: dict[str, Any], code: str) -> None:
    assert envelope["success"] is False, envelope
    assert envelope["error_code"] == code, envelope
    assert isinstance(envelope["error"], str) and envelope["error"].strip(), envelope
