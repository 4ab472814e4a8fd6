"""Credential shapes are masked in stored text; ids and hashes are not."""

from __future__ import annotations

import pytest

from claimwatch.store.secrets import mask


@pytest.mark.parametrize(
    "text",
    [
        "use sk-proj-abcdefghijklmnop1234 for it",
        "AKIAIOSFODNN7EXAMPLE is the key id",
        "token ghp_0123456789abcdefghijklmnopqrstuvwxyz01",
        "password=hunter2hunter2",
        "Authorization: Bearer abcdefghijklmnopqrstuvwxyz012345",
        "postgres://admin:s3cretpw@db.internal:5432/app",
        "eyJhbGciOiJIUzI1NiJ9.eyJzdWIiOiIxMjM0NTY3ODkwIn0.dozjgNryP4J3jVmNHl0w5N_XgL0n3I9PlFUP0THsR8U",
    ],
)
def test_credential_shapes_are_masked_when_stored(text):
    assert "[secret]" in mask(text)


@pytest.mark.parametrize(
    "text",
    ["commit 3f2a9c1d0e8b7a6f5e4d3c2b1a0f9e8d7c6b5a4f", "trace 4bf92f3577b34da6a3ce929d0e0e4736", "Docker is running"],
)
def test_ids_and_hashes_are_left_alone(text):
    assert mask(text) == text
