"""The scrubber's shortcuts (remembered sentences, a secret's letters-and-digits core looked
for first) never let a secret through."""

from __future__ import annotations

import json
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
