"""The scrubber's shortcuts (remembered sentences, a secret's letters-and-digits core looked
for first) never let a secret through."""

from __future__ import annotations

import base64
import json
import subprocess
import sys
from urllib.parse import quote

from webproviders import redact


def test_a_sentence_scrubbed_before_a_secret_was_known_is_masked_once_it_is() -> None:
    secret = "sk-live-Remembered-0123456789"
    sentence = f"upstream said: bad key {secret}"
    assert redact.scrub(sentence) == sentence  # not a secret yet, and remembered so
    redact.remember(secret)
    assert secret not in redact.scrub(sentence)


def test_an_answer_holding_a_secret_in_any_form_is_masked() -> None:
    secret = "ab+/cd=Ef9K-longer-key_value"
    redact.remember(secret)
    answer = {
        "web": [
            {"title": "t", "url": f"https://a.example/?k={quote(secret, safe='')}", "description": "d"},
            {"title": json.dumps({"key": secret}), "url": "https://b.example/", "description": "d"},
        ]
    }
    clean = redact.scrub_data(answer)
    text = json.dumps(clean)
    assert quote(secret, safe="") not in text and secret not in text
    assert clean["web"][0]["url"].startswith("https://a.example/?k=")


def test_a_secret_with_no_letters_and_digits_run_is_still_found() -> None:
    secret = "!#$%&*()_+-=[]{}"  # no run of ASCII letters and digits to look for
    redact.remember(secret)
    clean = redact.scrub_data([{"url": "https://a.example/", "content": f"leaked {secret} here"}])
    assert secret not in clean[0]["content"]


def test_an_answer_without_a_secret_is_returned_as_it_is() -> None:
    redact.remember("sk-live-Unrelated-0123456789")
    answer = {"web": [{"title": "plain", "url": "https://a.example/", "description": "nothing to hide"}]}
    assert redact.scrub_data(answer) is answer


def _every_form(secret: str) -> list[str]:
    """The forms a secret travels in: as written, percent-encoded (upper- and lower-case hex),
    and as the Basic credential of a ``user:secret@`` URL."""
    basic = base64.b64encode(f"tenant:{secret}".encode()).decode()
    return [secret, quote(secret, safe=""), quote(secret, safe="").replace("%2F", "%2f").replace("%2B", "%2b"), basic]


def test_every_key_of_many_tenants_stays_masked_in_every_form() -> None:
    # More keys than are looked for one by one, with a vendor's fixed prefix and a shared
    # ending, each remembered as a tenant's call reads it, between scrubs.
    secrets = [f"BSA{i:05d}/tenant+Key-{i * 7919 % 100003:06d}-common" for i in range(600)]
    for index, secret in enumerate(secrets):
        redact.remember(secret, *redact.url_credentials(f"https://tenant:{quote(secret, safe='')}@gateway.example/"))
        for form in _every_form(secret):
            assert form not in redact.scrub(f"call {index} refused: {form}!")
    for secret in secrets[::37] + secrets[-3:]:  # the first keys too, after hundreds of others
        for form in _every_form(secret):
            assert redact.scrub(f"HTTP 401: {form}.") == "HTTP 401: ***."
        page = [{"url": "https://a.example/", "content": f"quoted {json.dumps({'key': secret})} and {quote(secret, safe='')}"}]
        assert secret not in json.dumps(redact.scrub_data(page)) and quote(secret, safe="") not in json.dumps(redact.scrub_data(page))
        assert redact.scrub(f"Incorrect API key provided: {secret[:6]}***{secret[-4:]}") == "Incorrect API key provided: ***"


def test_a_process_that_sees_keys_without_end_forgets_the_oldest_unused_ones_only() -> None:
    # In a process of its own: the bound is the process's, and forgetting is what is tested.
    script = """
from webproviders import redact
redact.MAX_SECRETS = 100
redact.remember("long-lived-Key-0123456789")
tenants = [f"tenant-Key-{i:06d}-abcdef" for i in range(300)]
for i, key in enumerate(tenants):
    redact.remember(key)
    if i % 10 == 0:
        redact.remember("long-lived-Key-0123456789")  # read again by each call that uses it
    assert redact.scrub(key) == "***"
assert redact.scrub("long-lived-Key-0123456789") == "***"
assert all(redact.scrub(key) == "***" for key in tenants[-90:])
assert redact.scrub(tenants[0]) == tenants[0]
"""
    done = subprocess.run([sys.executable, "-c", script], capture_output=True, text=True, timeout=120)
    assert done.returncode == 0, done.stderr


def test_a_key_quoted_in_another_case_is_masked_as_it_is() -> None:
    secret = "tvly-dev-Case0123Mixed9kQz"
    redact.remember(secret)
    for quoted in (secret.upper(), secret.lower(), quote(secret.upper(), safe="")):
        assert redact.scrub(f"UPSTREAM REFUSED {quoted}.") == "UPSTREAM REFUSED ***."
    page = [{"url": "https://a.example/", "content": f"the key {secret.lower()} was sent"}]
    assert redact.scrub_data(page)[0]["content"] == "the key *** was sent"


def test_a_config_in_use_keeps_its_secrets_among_those_a_busy_process_remembers() -> None:
    script = """
from webproviders import dispatch_search, redact
from webproviders.config import config_from_dict
redact.MAX_SECRETS = 50
config = config_from_dict({"web": {"backend": "stub", "providers": {
    "searxng": {"base_url": "http://searx:Gateway-Pass-0123456789@127.0.0.1:9/"}}}})
for i in range(300):
    redact.remember(f"tenant-Key-{i:06d}-abcdef")
    if i % 10 == 0:
        assert dispatch_search("hello", config=config)["success"]
assert redact.scrub("refused Gateway-Pass-0123456789") == "refused ***"
"""
    done = subprocess.run([sys.executable, "-c", script], capture_output=True, text=True, timeout=120)
    assert done.returncode == 0, done.stderr
