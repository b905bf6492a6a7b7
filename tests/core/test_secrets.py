"""No API key ever appears in an envelope, a log record or a repr."""

from __future__ import annotations

import json
import logging
from typing import Any

import pytest

from webproviders import dispatch_search
from webproviders.redact import get_logger, scrub

SECRET = "sk-live-9f8e7d6c5b4a3210"
ENV_SECRET = "env-secret-0123456789"

LEAKY = """
import os
import httpx
from webproviders import WebSearchProvider

class Leaky(WebSearchProvider):
    name = "leaky"
    def __init__(self, settings):
        self.settings = settings
    def is_available(self):
        return True
    def search(self, query, limit=5, **options):
        key = self.settings.api_keys()[0]
        env_key = os.environ["LEAKY_API_KEY"]
        if query == "status":
            request = httpx.Request("GET", "https://api.leaky.example/s?api_key=" + key)
            response = httpx.Response(401, request=request)
            raise httpx.HTTPStatusError("401 for url https://api.leaky.example/s?api_key=" + key, request=request, response=response)
        raise RuntimeError(
            "request failed: Authorization: Bearer " + key + " x-api-key: " + env_key + " url=https://x/?key=" + key
        )

def register(ctx):
    ctx.register_web_search_provider(Leaky(ctx.settings("leaky")))
"""


@pytest.fixture
def leaky_config(write_plugin: Any, make_config: Any, monkeypatch: pytest.MonkeyPatch) -> Any:
    monkeypatch.setenv("LEAKY_API_KEY", ENV_SECRET)
    root = write_plugin("leaky", LEAKY, [{"name": "leaky", "env": [{"key": "LEAKY_API_KEY"}]}])
    return make_config(
        plugins={"paths": [str(root)], "enabled": ["leaky"]},
        web={"providers": {"leaky": {"api_key": SECRET}}},
    )


def test_envelope_and_logs_never_show_the_key(leaky_config: Any, caplog: pytest.LogCaptureFixture) -> None:
    with caplog.at_level(logging.DEBUG):
        envelopes = [dispatch_search(q, backend="leaky", config=leaky_config) for q in ("boom", "status")]
        get_logger("webproviders.test").warning("leak attempt %s %s", SECRET, ENV_SECRET)
        logging.getLogger("httpx").info("HTTP Request: GET https://api.example/?api_key=%s", SECRET)
    for envelope in envelopes:
        text = repr(envelope)
        assert SECRET not in text and ENV_SECRET not in text
        assert envelope["success"] is False
    assert envelopes[0]["error_code"] == "provider_error"
    assert "***" in envelopes[0]["error"]
    assert envelopes[1]["error_code"] == "auth_error"
    for record in caplog.records:
        assert SECRET not in record.getMessage()
        assert ENV_SECRET not in record.getMessage()


def test_a_declared_variable_set_at_run_time_is_masked_from_the_next_call(
    write_plugin: Any, make_config: Any, monkeypatch: pytest.MonkeyPatch, caplog: pytest.LogCaptureFixture
) -> None:
    """A plugin reading the key its manifest declares itself (not through ``VendorProvider``):
    set after the first call, the key came back whole in the next call's error, warnings and
    log lines, until the watched variables were next read (once a second)."""
    from webproviders import redact

    monkeypatch.setattr(redact, "ENV_EVERY", 3600.0)  # read again only when the registry says so
    monkeypatch.delenv("LATE_API_KEY", raising=False)
    code = """
import os
from webproviders import WebSearchProvider, warn
from webproviders.kit import get_logger

class Late(WebSearchProvider):
    name = "late"
    def is_available(self):
        return bool(os.environ.get("LATE_API_KEY"))
    def search(self, query, limit=5, **options):
        key = os.environ["LATE_API_KEY"]
        get_logger("late").warning("asking with %s", key)
        warn("asked with " + key)
        raise RuntimeError("the vendor refused " + key)

def register(ctx):
    ctx.register_web_search_provider(Late())
"""
    root = write_plugin("late", code, [{"name": "late", "env": [{"key": "LATE_API_KEY"}]}])
    config = make_config(plugins={"paths": [str(root)], "enabled": ["late"]}, web={"cache": False})
    assert dispatch_search("q", backend="late", config=config)["error_code"] == "not_configured"
    monkeypatch.setenv("LATE_API_KEY", ENV_SECRET)
    with caplog.at_level(logging.WARNING):
        envelope = dispatch_search("q", backend="late", config=config)
    assert envelope["error"] == "late failed: RuntimeError: the vendor refused ***"
    assert ENV_SECRET not in json.dumps(envelope)
    assert caplog.records and not [r for r in caplog.records if ENV_SECRET in r.getMessage()]
    # Its first call after another provider's (which read the variables while it was unset).
    other = make_config(plugins={"paths": [str(root)], "enabled": ["late"]}, web={"cache": False, "timeout": 9})
    monkeypatch.setenv("LATE_API_KEY", "late-secret-abcdefgh")
    assert dispatch_search("q", backend="stub", config=other)["success"] is True
    monkeypatch.setenv("LATE_API_KEY", ENV_SECRET + "-2")
    assert "-2" not in dispatch_search("q", backend="late", config=other)["error"]


def test_reprs_do_not_show_keys(leaky_config: Any) -> None:
    from webproviders.registry.providers import get_registry

    registry = get_registry(leaky_config)
    entry = registry.get("leaky")
    assert entry is not None
    for text in (repr(leaky_config), str(leaky_config), repr(leaky_config.provider("leaky")), repr(entry.provider)):
        assert SECRET not in text
    assert SECRET not in leaky_config.model_dump_json()


@pytest.mark.parametrize(
    "text",
    [
        "Authorization: Bearer abcdefghijklmnop",
        "authorization=Bot abcdefghijklmnop",
        "X-Subscription-Token: abcdefghijklmnop",
        "https://api.example/search?q=x&api_key=abcdefghijklmnop",
        "https://www.googleapis.com/customsearch/v1?key=abcdefghijklmnop&cx=1",
        '{"api_key": "abcdefghijklmnop"}',
        # a scheme other than Bearer, Basic, Bot, Token and Digest: not taken for the credential
        "Authorization: ApiKey abcdefghijklmnop",
        "Proxy-Authorization: Negotiate abcdefghijklmnop",
        '{"authorization": "DeepL-Auth-Key abcdefghijklmnop"}',
        "Authorization: SSWS abcdefghijklmnop",
        # the signature of a signed link (S3, Azure SAS)
        "https://b.s3.amazonaws.com/k?X-Amz-Credential=AKIA&X-Amz-Signature=abcdefghijklmnop",
        "https://acct.blob.core.windows.net/c/f?sv=2022&sig=abcdefghijklmnop",
        # a .env line
        "TAVILY_API_KEY=abcdefghijklmnop",
        "password = abcdefghijklmnop",
        "WEBPROVIDERS_MCP_TOKEN=abcdefghijklmnop",
    ],
)
def test_credential_shapes_are_masked_whatever_the_value(text: str) -> None:
    assert "abcdefghijklmnop" not in scrub(text)


KNOWN = "kN0wn/Key+with=chars\r\n0123"


@pytest.mark.parametrize(
    "form",
    [
        KNOWN,
        "kN0wn%2FKey%2Bwith%3Dchars%0D%0A0123",  # percent-encoded
        "kN0wn%2fKey%2bwith%3dchars%0d%0a0123",  # percent-encoded in lower case, as .NET's UrlEncode does
        "kN0wn/Key+with=chars\\r\\n0123",  # JSON or repr escaped
        "kN0wn/Key+with=chars\\\\r\\\\n0123",  # escaped twice: the repr of a message holding a repr
    ],
)
def test_every_form_of_a_known_secret_is_masked(form: str) -> None:
    from webproviders import redact

    redact.remember(KNOWN)
    assert scrub(f"refused: {form}.") == "refused: ***."


@pytest.mark.parametrize(
    ("text", "kept"),
    [
        ("searxng at http://user:pa55word@127.0.0.1:8783 said no", "searxng at http://***@127.0.0.1:8783 said no"),
        # a URL quoted after an encoded space, as httpx quotes a proxy variable with one before it
        ("proxy URL URL('%20http://user:pa55word@127.0.0.1:3128')", "proxy URL URL('%20http://***@127.0.0.1:3128')"),
        ('{"headers": {"authorization": "Basic dXNlcjpwYXNz"}}', '{"headers": {"authorization": "Basic ***"}}'),
        ("Invalid token: Bearer abcdefgh12345678", "Invalid token: Bearer ***"),
        ("Authorization: ApiKey abcdefgh12345678 was refused", "Authorization: *** was refused"),
    ],
)
def test_credential_shapes_in_echoed_bodies_are_masked(text: str, kept: str) -> None:
    assert scrub(text) == kept


def test_a_masked_echo_of_a_known_key_is_masked_and_other_stars_are_not() -> None:
    from webproviders import redact

    redact.remember("banana-split-0123456789na")
    assert scrub("Incorrect API key provided: ba***na.") == "Incorrect API key provided: ***."
    assert scrub("rated ***** by 5 users; see x***y") == "rated ***** by 5 users; see x***y"


def test_a_quote_of_a_huge_body_reads_its_start_and_cuts_no_secret_in_half() -> None:
    """A vendor's error body of megabytes is quoted from its start (scrubbed whole, 30 MB held
    the caller's loop 3.5 s); the word cut where reading stops is left out, as it may be the
    start of a secret that is masked only whole."""
    from webproviders import redact
    from webproviders.errors import QUOTE_READ, quote

    redact.remember("Quote0Secret0Value0123")
    assert quote("said: Quote0Secret0Value0123 " + "y " * 3_000_000).startswith("said: *** y y")
    straddling = " " * (QUOTE_READ - 6) + "Quote0Secret0Value0123 and more " + "x" * 100_000
    assert "Quote0" not in quote(straddling)


@pytest.mark.parametrize(
    "echo", ["tvly-dev-Ab3x...9kQz", "tvly-dev-Ab3xQ7rT0123***9kQz", "tvly-dev-Ab3xQ7rT0123456789…Qz"]
)
def test_an_echo_showing_a_long_head_of_a_known_key_is_masked_whole(echo: str) -> None:
    """Keys with a vendor prefix (``tvly-dev-``, ``sk-proj-``) leave few characters of their
    own in a short head; an echo showing more of the key than that is masked all the same,
    and never by masking only the stars after the head it shows."""
    from webproviders import redact

    redact.remember("tvly-dev-Ab3xQ7rT0123456789Zz9kQz")
    assert scrub(f"Invalid API key: {echo}. Check it.") == "Invalid API key: ***. Check it."


@pytest.mark.parametrize(
    ("echo", "kept"),
    [
        ("Invalid API key: sk.Live/Key+0123***XYZ. Check it.", "Invalid API key: ***. Check it."),
        ("Invalid API key (sk.Live/Key+0123456789abcdef...)", "Invalid API key (***)"),
        ("GET /v1/keys/sk.Live/Ke***XYZ failed", "GET /v1/keys/*** failed"),
    ],
)
def test_an_echo_of_a_key_holding_dots_slashes_or_pluses_is_masked_whole(echo: str, kept: str) -> None:
    """A key in base64's alphabet or with dotted parts: the head a vendor shows ran past the
    first ``.``, ``/`` or ``+``, and all but its last part stood before the mask (28 of 31
    characters of the key when the vendor cut it with ``...``)."""
    from webproviders import redact

    redact.remember("sk.Live/Key+0123456789abcdefXYZ")
    assert scrub(echo) == kept


def test_provider_data_keeps_words_that_a_short_secret_would_mangle() -> None:
    from webproviders import redact

    redact.remember("qzx9", "a-long-secret-value-42")  # remembered for the rest of the process
    data = [{"url": "https://a.example/", "content": "qzx9ing with a-long-secret-value-42", "error": None}]
    assert redact.scrub_data(data) == [{"url": "https://a.example/", "content": "qzx9ing with ***", "error": None}]
    assert scrub("qzx9ing") == "***ing"  # error text and logs mask it all the same
    untouched = [{"url": "https://a.example/", "content": "nothing to hide"}]
    assert redact.scrub_data(untouched) is untouched


@pytest.mark.parametrize("mode", ["sync", "async"])
def test_a_url_refused_for_its_password_is_given_back_without_it(mode: str) -> None:
    """Pages are never fetched with a ``user:password@``; the refusal names the URL with it
    masked, and so does the failure it lists the URL in (an envelope is logged and shown to
    models)."""
    import asyncio
    import json

    from webproviders import adispatch_extract, dispatch_extract
    from webproviders.config import config_from_dict

    config = config_from_dict({"web": {"allow_private_networks": True, "cache": False}}, source="<test>")
    urls = ["http://alice:pw-8c1f2e@127.0.0.1:9/page", "ftp://bob:pw-77aa01@files.example/"]
    if mode == "sync":
        envelope = dispatch_extract(urls, backend="http", config=config, timeout=10)
    else:
        envelope = asyncio.run(adispatch_extract(urls, backend="http", config=config, timeout=10))
    assert envelope["success"] is False
    text = json.dumps(envelope)
    assert "pw-8c1f2e" not in text and "pw-77aa01" not in text, text
    failures = envelope["meta"]["failures"]
    assert [f["url"] for f in failures] == ["http://***@127.0.0.1:9/page", "ftp://***@files.example/"]
    assert [f["error_code"] for f in failures] == ["unsafe_url", "invalid_input"]


@pytest.mark.parametrize("secret", ["sk-\udce9abc12345", "sk-\ud800abcdefgh"])
def test_a_key_that_is_not_utf8_breaks_no_call(monkeypatch: pytest.MonkeyPatch, secret: str) -> None:
    """A byte that is not UTF-8 in a secret variable reads as a lone surrogate. Masking it
    raised UnicodeEncodeError out of every call, a stub search and an input check included."""
    from webproviders import redact
    from webproviders.config import config_from_dict

    if secret.startswith("sk-\udce9"):
        monkeypatch.setenv("BRAVE_API_KEY", secret)
        config = config_from_dict({"web": {"providers": {"brave": {"base_url": "http://127.0.0.1:9"}}}})
    else:
        config = config_from_dict({"web": {"providers": {"brave": {"api_key": secret, "base_url": "http://127.0.0.1:9"}}}})
    redact.remember(secret)

    assert dispatch_search("x", backend="stub", config=config)["success"] is True
    assert dispatch_search("x", limit=0, backend="stub", config=config)["error_code"] == "invalid_input"
    brave = dispatch_search("x", backend="brave", config=config)
    assert brave["error_code"] == "not_configured" and "type it again" in brave["error"]
    assert scrub(f"the key {secret} was refused") == "the key *** was refused"


@pytest.mark.parametrize(
    ("web", "secret"),
    [
        # a password holding an unencoded '/' ends the URL's host early
        ({"providers": {"searxng": {"base_url": "http://user:Pw0rd/Secret9@127.0.0.1/"}}}, "Pw0rd/Secret9"),
        # a base URL written without its scheme
        ({"providers": {"searxng": {"base_url": "user:Pw0rdSecret9@127.0.0.1:8080"}}}, "Pw0rdSecret9"),
        # a quote or a space in a password, where the URL pattern stops
        ({"proxy": "http://u:ab'Pw0rdSecret9@127.0.0.1:3128"}, "Pw0rdSecret9"),
        ({"cache": {"backend": "redis", "url": "redis://:Pw0rdSecret9 x@127.0.0.1:6379/0"}}, "Pw0rdSecret9"),
        # a PostgreSQL connection string of key=value pairs
        ({"providers": {"local": {"dsn": "host=db port=5432 user=pages password=Pw0rdSecret9"}}}, "Pw0rdSecret9"),
        ({"providers": {"local": {"dsn": "host=db password='Pw0rd Secret9' user=pages"}}}, "Pw0rd Secret9"),
        # a gateway's token in the base URL's query
        ({"providers": {"searxng": {"base_url": "http://127.0.0.1/?code=GatewayT0ken0123456789"}}}, "GatewayT0ken0123456789"),
    ],
)
def test_a_config_s_repr_masks_its_secrets_before_any_call(web: dict[str, Any], secret: str) -> None:
    """A config is logged or printed as soon as it is loaded, before any call has read its
    secrets; each form of credential it can hold is masked from the start."""
    from webproviders.config import config_from_dict

    config = config_from_dict({"web": web}, source="<test>")
    for text in (repr(config), str(config), repr(config.web)):
        assert secret not in text, text
    assert "***" in repr(config)


@pytest.mark.parametrize(
    ("path", "value"),
    [
        ("web.providers.searxng.base_url", "https://user:Pw0rdSecret9@127.0.0.1:8080/"),
        ("web.proxy", "http://u:Pw0rdSecret9@127.0.0.1:3128"),
        ("web.cache.url", "redis://:Pw0rdSecret9@127.0.0.1:6379/0"),
        ("web.rate_limit.url", "redis://:Pw0rdSecret9@127.0.0.1:6379/1"),
        ("web.usage.url", "rediss://u:Pw0rdSecret9@127.0.0.1:6379/2"),
        ("web.providers.local.dsn", "host=db port=5432 user=pages password=Pw0rdSecret9"),
        ("web.providers.gateway.headers", {"Authorization": "Bearer Pw0rdSecret9"}),
    ],
)
def test_a_config_s_dump_masks_what_its_repr_masks(path: str, value: Any) -> None:
    """The repr hid a base URL's password while model_dump() and model_dump_json(), what a
    config is logged or saved with, showed it; the code that connects keeps the real value."""
    from webproviders.config import config_from_dict

    data: dict[str, Any] = {"web": {"providers": {"tavily": {"api_key": "tvly-Dump0Key0123456"}}}}
    *parents, leaf = path.split(".")
    node = data
    for part in parents:
        node = node.setdefault(part, {})
    node[leaf] = value
    config = config_from_dict(data)
    section = config.setting(".".join(parents))  # dumped on its own too (web.cache)
    dumps = (
        str(config.model_dump()),
        str(config.model_dump(mode="json")),
        config.model_dump_json(),
        config.web.model_dump_json(),
        str(section.model_dump()),
        section.model_dump_json(),
    )
    for text in dumps:
        assert "Pw0rdSecret9" not in text and "tvly-Dump0Key0123456" not in text, text
        assert "***" in text
    assert config.setting(path) == value


def test_short_query_values_of_a_base_url_are_not_taken_for_secrets() -> None:
    """Only a query value long enough to be a token is masked: ``format=json`` is a setting,
    and masking "json" everywhere would garble error sentences."""
    from webproviders.config import config_from_dict

    config = config_from_dict({"web": {"providers": {"searxng": {"base_url": "http://127.0.0.1/?format=json"}}}})
    assert "format=json" in repr(config)
    assert scrub("the answer was not json") == "the answer was not json"


def test_a_plugin_that_fails_quoting_its_key_is_listed_without_it(
    write_plugin: Any, make_config: Any, monkeypatch: pytest.MonkeyPatch
) -> None:
    """A plugin's load error is its own text; listed by ``webproviders providers`` and by MCP's
    ``web_providers`` (a model reads that), it once showed the key a failed import quoted."""
    monkeypatch.setenv("QUOTING_API_KEY", ENV_SECRET)
    root = write_plugin(
        "quoting",
        "import os\nraise RuntimeError('key rejected: ' + os.environ['QUOTING_API_KEY'])\n",
        providers=[
            {
                "name": "quoting",
                "capabilities": ["search"],
                "env": [{"key": "QUOTING_API_KEY", "prompt": "key", "secret": True}],
            }
        ],
    )
    from webproviders import list_providers
    from webproviders.agents.mcp_server import _providers

    config = make_config(plugins={"paths": [str(root)], "enabled": ["quoting"]})
    assert dispatch_search("q", backend="quoting", config=config)["error_code"] == "not_configured"
    row = next(row for row in list_providers(config) if row["name"] == "quoting")
    assert row["load_error"] == "import failed: RuntimeError: key rejected: ***"
    assert row["reason"] == "its plugin 'quoting' failed to load (import failed: RuntimeError: key rejected: ***)"
    assert ENV_SECRET not in str(_providers(config))


def test_a_secret_set_under_the_config_key_a_manifest_names_is_masked(
    write_plugin: Any, make_config: Any, caplog: pytest.LogCaptureFixture
) -> None:
    """A plugin's secret variable may stand in for a key other than ``api_key``
    (``config_key: token``); set in the config instead, its value is as secret as the
    variable's would be, in the envelope, the log and the config's repr."""
    token = "tok-cfg-4c1d8e0b7a6f"
    root = write_plugin(
        "tokened",
        """
        from webproviders import AuthError, WebSearchProvider
        from webproviders.redact import get_logger

        class Tokened(WebSearchProvider):
            name = "tokened"
            def __init__(self, settings):
                self.settings = settings
            def is_available(self):
                return True
            def search(self, query, limit=5, **options):
                token = self.settings.option("token")
                get_logger("webproviders.test").warning("sending token %s", token)
                raise AuthError("the vendor refused token " + token)

        def register(ctx):
            ctx.register_web_search_provider(Tokened(ctx.settings("tokened")))
        """,
        [{"name": "tokened", "env": [{"key": "TOKENED_TOKEN", "config_key": "token", "secret": True}]}],
    )
    config = make_config(
        plugins={"paths": [str(root)], "enabled": ["tokened"]},
        web={"providers": {"tokened": {"token": token}}},
    )
    with caplog.at_level(logging.WARNING):
        envelope = dispatch_search("q", backend="tokened", config=config)
    assert envelope["error_code"] == "auth_error"
    assert envelope["error"] == "the vendor refused token ***"
    assert token not in repr(config)
    assert all(token not in record.getMessage() for record in caplog.records)


def test_a_vendor_key_holding_headers_or_tokens_is_masked_in_the_config_repr() -> None:
    """A provider section's vendor-specific keys are free-form; one holding a mapping (headers
    for a gateway) or a list was shown in the config's repr as written, credential and all."""
    from webproviders.config import config_from_dict

    config = config_from_dict(
        {"web": {"providers": {"gateway": {"headers": {"Authorization": "Bearer gw-7f3a9c1e5b2d8046"}}}}}
    )
    for text in (repr(config), str(config), repr(config.provider("gateway"))):
        assert "gw-7f3a9c1e5b2d8046" not in text
        assert "'Authorization': 'Bearer ***'" in text


def test_a_key_pasted_as_a_dotenv_line_is_not_named_in_the_warning_about_it(
    tmp_path: Any, caplog: pytest.LogCaptureFixture
) -> None:
    """``TAVILY_API_KEY=tvly-...`` pasted from a .env file makes a key name the config does
    not read: the warning that names the stray key must not print the key it holds."""
    from webproviders import list_providers
    from webproviders.config import load_config

    path = tmp_path / "config.yaml"
    path.write_text(
        "web:\n"
        "  providers:\n"
        "    tavily: {api_key=tvly-Pasted0Key0123456789}\n"
        "    brave:\n"
        "      BRAVE_API_KEY=Pasted1Key0123456789:\n",
        encoding="utf-8",
    )
    with caplog.at_level(logging.WARNING):
        list_providers(config=load_config(str(path)))
    logged = "\n".join(record.getMessage() for record in caplog.records)
    assert "'web.providers.tavily.api_key=***'" in logged  # still named, as far as is safe
    assert "Pasted0Key" not in logged and "Pasted1Key" not in logged


def test_a_key_set_where_a_backend_name_was_meant_is_not_in_the_envelope(
    monkeypatch: pytest.MonkeyPatch,
) -> None:
    """``search_backend: ${TAVILY_API_KEY}``: the call fails naming an unknown backend, and
    neither the sentence nor the envelope's ``provider`` beside it holds the key."""
    from webproviders.config import config_from_dict

    key = "tvly-Wrong0Place0Key0123456789"
    monkeypatch.setenv("TAVILY_API_KEY", key)
    config = config_from_dict({"web": {"search_backend": key}}, source="<test>")
    envelope = dispatch_search("q", config=config)
    assert envelope["error_code"] == "not_configured" and "Unknown backend '***'" in envelope["error"]
    assert envelope["provider"] == "***"
    assert "Wrong0Place0Key" not in repr(envelope)


@pytest.mark.parametrize("shape", ["name", "chain", "fuse"])
def test_a_key_passed_as_backend_is_masked_in_meta_too(monkeypatch: pytest.MonkeyPatch, shape: str) -> None:
    """``meta.requested_backend`` repeats what the caller asked for: a key pasted there is
    masked as the error beside it masks it (the CLI's ``--json`` and MCP results show meta)."""
    from webproviders.config import config_from_dict

    key = "tvly-Wrong1Place1Key0123456789"
    monkeypatch.setenv("TAVILY_API_KEY", key)
    config = config_from_dict({"web": {"cache": False}}, source="<test>")
    backend = {"name": key, "chain": ["stub", key], "fuse": {"fuse": [key, "stub"]}}[shape]
    envelope = dispatch_search("q", backend=backend, config=config)
    assert not envelope["success"] and "Wrong1Place1Key" not in json.dumps(envelope)
    shown = {"name": "***", "chain": ["stub", "***"], "fuse": {"fuse": ["***", "stub"]}}[shape]
    assert envelope["meta"]["requested_backend"] == shown


def test_a_key_value_dsn_whose_password_holds_colon_and_at_masks_it_whole_and_no_word() -> None:
    # Read as a URL, the text between ':' and '@' was taken for a password: 'word' then
    # masked every "password" in every sentence ("pass*** authentication failed").
    password = "Wr0ng:word@x/0123456789"
    dsn = f"host=127.0.0.1 port=5432 user=app dbname=pages password='{password}'"
    from webproviders.config import config_from_dict

    config = config_from_dict({"web": {"providers": {"local": {"dsn": dsn}}}})
    sentence = 'FATAL:  password authentication failed for user "app"; check PGPASSWORD'
    assert scrub(sentence) == sentence
    assert scrub(f"refused {password}") == "refused ***"
    assert password not in repr(config)


def test_with_many_keys_known_ordinary_ellipses_keep_their_words_and_echoes_are_still_masked() -> None:
    # With a thousand keys known, some key starts with any letter or two: a head that short
    # is no echo of one ("I... think" became "*** think").
    import random
    import string

    from webproviders import redact

    chars = random.Random(7)
    keys = ["".join(chars.choice(string.ascii_letters + string.digits) for _ in range(32)) for _ in range(1000)]
    redact.remember(*keys)
    for text in ("I... think so", "Fetching page 2... done", "see https://example.com/a... or b...", "No results (q...)"):
        assert scrub(text) == text
    key = keys[500]
    assert scrub(f"Incorrect API key provided: {key[:2]}***{key[-2:]}.") == "Incorrect API key provided: ***."
    assert scrub(f"Invalid API key ({key[:6]}...)") == "Invalid API key (***)"
