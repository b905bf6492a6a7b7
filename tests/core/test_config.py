"""Configuration: files, interpolation, defaults, env overrides and error messages."""

from __future__ import annotations

import copy
import logging
import os
from pathlib import Path
from typing import Any

import pytest

from webproviders import dispatch_search
from webproviders.config import (
    Config,
    ConfigError,
    ProviderSettings,
    config_from_dict,
    interpolate,
    load_config,
)


def test_defaults_without_any_file(monkeypatch: pytest.MonkeyPatch) -> None:
    config = load_config()
    assert config.source == "defaults"
    assert config.web.timeout == 30.0
    assert config.web.backend is None
    assert config.web.allow_private_networks is False
    assert config.plugins.enabled == []
    assert config.provider("brave").api_keys() == []


@pytest.mark.parametrize("tree", [{}, {"web": {}, "mcp": {}}, {"web": None, "plugins": {}}])
def test_a_config_that_sets_nothing_is_the_validated_defaults(tree: dict[str, Any]) -> None:
    """Built without its validator, it is still exactly what validating it gives."""
    config = config_from_dict(tree)
    validated = Config.model_validate({key: value for key, value in tree.items() if value is not None} or {"web": {}})
    assert config.model_dump() == validated.model_dump()
    assert config.model_fields_set - {"source"} == validated.model_fields_set
    assert config.web.model_fields_set == set()
    assert config.provider("brave").model_dump() == ProviderSettings().model_dump()


#: The ``web`` sections of features a process may never use (their models load on first use).
FEATURE_SECTIONS = ["cache", "rate_limit", "health", "retry", "budget", "usage", "local", "extraction"]


@pytest.mark.parametrize("data", ["web: {backend: stub}", 5, [("web", {"backend": "stub"})]], ids=["yaml-text", "int", "pairs"])
def test_a_config_that_is_not_a_mapping_is_refused_as_a_config_error(data: Any) -> None:
    """As load_config() refuses a file whose top level is not a mapping: a string was a raw
    ValueError, an int a TypeError, and a list of pairs was read as if it were a mapping."""
    with pytest.raises(ConfigError, match="the top level must be a mapping"):
        config_from_dict(data)


def test_a_section_no_config_gave_reads_as_its_validated_defaults() -> None:
    """Built when first read: the same object on every read, equal to what validating an
    empty section gives, in copies and dumps alike."""
    config = config_from_dict({})
    validated = Config.model_validate({"web": dict.fromkeys(FEATURE_SECTIONS, {}), "mcp": {}})
    assert copy.deepcopy(config) == config
    assert config.model_dump() == validated.model_dump()
    for name in FEATURE_SECTIONS:
        section = getattr(config.web, name)
        assert section == getattr(validated.web, name)
        assert getattr(config.web, name) is section
    assert config.mcp == validated.mcp
    assert config.web == validated.web
    config.web.retry = validated.web.retry.model_copy(update={"max_retries": 5})
    assert config.web.retry.max_retries == 5


def test_secrets_of_given_sections_are_found_beside_unread_ones() -> None:
    config = config_from_dict(
        {"web": {"cache": {"url": "redis://cache:cache-pass-1@127.0.0.1:6379/0"}}, "mcp": {"token": "mcp-token-123"}}
    )
    assert {"cache-pass-1", "mcp-token-123"} <= set(config.secrets())
    assert config_from_dict({}).secrets() == []


@pytest.mark.parametrize("tree", [{"web": []}, {"web": 0}, {"plugins": ""}, {"web": {"timeout": 0}}])
def test_an_empty_looking_section_of_the_wrong_kind_is_still_refused(tree: dict[str, Any]) -> None:
    with pytest.raises(ConfigError, match="Invalid configuration"):
        config_from_dict(tree)


def test_interpolation_with_defaults() -> None:
    env = {"TOKEN": "abc", "EMPTY": ""}
    tree = {"a": "${TOKEN}", "b": "x-${MISSING:-fallback}-y", "c": ["${EMPTY:-d}", 3], "d": "${MISSING}"}
    assert interpolate(tree, env) == {"a": "abc", "b": "x-fallback-y", "c": ["d", 3], "d": ""}


def test_file_is_loaded_from_explicit_path_then_env_var(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    first = tmp_path / "one.yaml"
    first.write_text("web:\n  backend: stub\n  providers:\n    brave:\n      api_key: ${BRAVE_KEY}\n")
    second = tmp_path / "two.yaml"
    second.write_text("web:\n  timeout: 12\n")
    monkeypatch.setenv("BRAVE_KEY", "bk-123456")
    monkeypatch.setenv("WEBPROVIDERS_CONFIG", str(second))
    explicit = load_config(first)
    assert explicit.web.backend == "stub"
    assert explicit.provider("brave").api_keys() == ["bk-123456"]
    assert explicit.source == str(first)
    assert load_config().web.timeout == 12


def test_a_backend_named_by_an_unset_variable_is_not_set(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    """``search_backend: ["${PRIMARY}", stub]`` with PRIMARY unset failed every search as
    "Unknown backend ''"; an unset variable counts as not set, as in WEB_SEARCH_BACKEND=a,,b."""
    monkeypatch.delenv("PRIMARY", raising=False)
    path = tmp_path / "config.yaml"
    path.write_text('web:\n  search_backend: ["${PRIMARY}", stub]\n  extract_backend: ${PRIMARY}\n')
    config = load_config(path)
    assert config.web.search_backend == ["stub"] and config.web.extract_backend is None
    assert dispatch_search("q", config=config)["provider"] == "stub"
    monkeypatch.setenv("PRIMARY", "stub")
    assert load_config(path).web.search_backend == ["stub", "stub"]


def test_a_chain_of_unset_variables_in_one_string_is_not_set(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    """``search_backend: ${PRIMARY},${SECONDARY}`` with both unset is ``,``: every search failed
    with "The backend given in web.search_backend names no provider", where the list form and
    ``WEB_SEARCH_BACKEND=,`` count as not set, and ``web.backend`` stands."""
    monkeypatch.delenv("PRIMARY", raising=False)
    monkeypatch.delenv("SECONDARY", raising=False)
    path = tmp_path / "config.yaml"
    path.write_text("web:\n  backend: stub\n  search_backend: ${PRIMARY},${SECONDARY}\n")
    config = load_config(path)
    assert config.web.search_backend is None
    assert dispatch_search("q", config=config)["provider"] == "stub"


def test_an_unset_variable_is_not_set_for_a_number_a_switch_or_a_choice_too(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    """An unset ``${VAR}`` is the empty string, documented as "not set" for every key; a key
    taking a number, a switch or a choice refused it ("Input should be a valid number"), so a
    deployment's ``timeout: ${CALL_TIMEOUT}`` broke every call wherever the variable was unset."""
    monkeypatch.delenv("UNSET_SETTING", raising=False)
    path = tmp_path / "config.yaml"
    path.write_text(
        "web:\n"
        "  timeout: ${UNSET_SETTING}\n"
        "  allow_private_networks: ${UNSET_SETTING}\n"
        "  on_unsupported: ${UNSET_SETTING}\n"
        "  budget: {daily_usd: '${UNSET_SETTING}'}\n"
        "  providers:\n"
        "    brave: {timeout: '${UNSET_SETTING}', rate_limit: '${UNSET_SETTING}', max_retries: '${UNSET_SETTING}'}\n"
        "plugins:\n"
        "  register_timeout: ${UNSET_SETTING}\n"
    )
    config = load_config(path)
    assert "timeout" not in config.web.model_fields_set  # unset: a provider may stretch it
    assert (config.web.timeout, config.web.allow_private_networks, config.web.on_unsupported) == (30.0, False, "warn")
    assert config.web.budget.daily_usd is None and config.plugins.register_timeout == 5.0
    brave = config.provider("brave")
    assert (brave.timeout, brave.rate_limit, brave.max_retries) == (None, None, None)
    assert dispatch_search("q", backend="stub", config=config)["success"] is True
    monkeypatch.setenv("UNSET_SETTING", "12")
    path.write_text("web:\n  timeout: ${UNSET_SETTING}\n")
    assert load_config(path).web.timeout == 12


def test_a_backend_variable_of_only_commas_is_not_set(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    """``WEB_BACKEND=","`` failed every call with "Invalid configuration in defaults:
    'web.backend': a backend list needs ...", blaming a file that says nothing about it; it
    names no backend, as an empty variable does, and the file's choice stands."""
    path = tmp_path / "c.yaml"
    path.write_text("web:\n  search_backend: stub\n")
    monkeypatch.setenv("WEB_BACKEND", " , ")
    monkeypatch.setenv("WEB_SEARCH_BACKEND", ",")
    config = load_config(path)
    assert (config.web.backend, config.web.search_backend) == (None, "stub")
    assert dispatch_search("q", config=config)["provider"] == "stub"


def test_default_location_is_used_when_present(monkeypatch: pytest.MonkeyPatch) -> None:
    home = Path.home()
    path = home / ".config" / "webproviders" / "config.yaml"
    path.parent.mkdir(parents=True)
    path.write_text("web:\n  search_backend: [brave, ddgs]\n")
    assert load_config().web.search_backend == ["brave", "ddgs"]


def test_the_default_file_is_under_xdg_config_home_when_it_is_set(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    """The variable was ignored: a config kept where the user's other tools keep theirs was
    never read, and the calls ran on the defaults. A relative value is ignored, as the XDG
    specification says (the file would move with the working directory)."""
    home_file = Path.home() / ".config" / "webproviders" / "config.yaml"
    home_file.parent.mkdir(parents=True)
    home_file.write_text("web:\n  search_backend: ddgs\n")
    xdg = tmp_path / "xdg"
    (xdg / "webproviders").mkdir(parents=True)
    (xdg / "webproviders" / "config.yaml").write_text("web:\n  search_backend: stub\n")
    monkeypatch.setenv("XDG_CONFIG_HOME", str(xdg))
    assert load_config().web.search_backend == "stub"
    monkeypatch.setenv("XDG_CONFIG_HOME", "xdg")
    monkeypatch.chdir(tmp_path)
    assert load_config().web.search_backend == "ddgs"


def test_env_overrides_beat_the_file(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    path = tmp_path / "c.yaml"
    path.write_text("web:\n  backend: stub\n  search_backend: ddgs\n")
    monkeypatch.setenv("WEB_BACKEND", "tavily")
    monkeypatch.setenv("WEB_SEARCH_BACKEND", "brave, searxng")
    monkeypatch.setenv("WEB_EXTRACT_BACKEND", "http")
    monkeypatch.setenv("WEB_CRAWL_BACKEND", "firecrawl")
    config = load_config(path)
    assert config.web.backend == "tavily"
    assert config.web.search_backend == ["brave", "searxng"]
    assert config.web.extract_backend == "http"
    assert config.web.crawl_backend == "firecrawl"


def test_bad_type_names_the_key_and_the_file(tmp_path: Path) -> None:
    path = tmp_path / "bad.yaml"
    path.write_text("web:\n  timeout: soon\n")
    with pytest.raises(ConfigError) as caught:
        load_config(path)
    assert "'web.timeout'" in str(caught.value)
    assert str(path) in str(caught.value)


@pytest.mark.parametrize(
    ("tree", "key"),
    [
        ({"web": {"on_unsupported": "explode"}}, "web.on_unsupported"),
        ({"web": {"providers": {"brave": {"timeout": -1}}}}, "web.providers.brave.timeout"),
        ({"web": {"search_backend": {"merge": ["a"]}}}, "web.search_backend"),
        ({"plugins": {"enabled": "notalist"}}, "plugins.enabled"),
    ],
)
def test_bad_values_name_their_key(tree: dict[str, Any], key: str) -> None:
    with pytest.raises(ConfigError) as caught:
        config_from_dict(tree, source="x.yaml")
    assert f"'{key}" in str(caught.value)


@pytest.mark.parametrize(
    ("tree", "expected"),
    [
        ({"web": {"backend": 5}}, "'web.backend': should be text, a list of text or a mapping"),
        ({"web": {"search_backend": ["brave", 1]}}, "'web.search_backend': should be text, a list of text or a mapping"),
        ({"web": {"providers": {"brave": {"api_key": [1]}}}}, "'web.providers.brave.api_key': should be text or a list of text"),
        ({"web": {"providers": {"brave": {"rate_limit": 5}}}}, "'web.providers.brave.rate_limit': should be text, true or false"),
        ({"web": {"providers": {"brave": 5}}}, "'web.providers.brave': should be a mapping of settings"),
        ({"web": ["brave"]}, "'web': should be a mapping of settings"),
        ({"web": {"cache": "sometimes"}}, "'web.cache': should be true, false or a mapping of settings"),
        ({"web": {"usage": 1.5}}, "'web.usage': should be true, false or a mapping of settings"),
        ({"mcp": {"users": {"alice": 5}}}, "'mcp.users.alice': should be the user's token (text) or a mapping"),
        ({"web": {"proxy": "ftp://proxy.internal"}}, "'web.proxy': the proxy must be an http://"),
        # YAML reads yes/on as true, which pydantic would take as 1 (a one-second deadline).
        ({"web": {"timeout": True}}, "'web.timeout': should be a number, not true or false"),
        ({"web": {"providers": {"brave": {"timeout": True}}}}, "'web.providers.brave.timeout': should be a number"),
        ({"web": {"hedge_after": False}}, "'web.hedge_after': should be a number, not true or false"),
        ({"web": {"cache": {"ttl": {"search": True}}}}, "'web.cache.ttl.search': should be a number, not true"),
    ],
)
def test_a_value_of_the_wrong_kind_says_which_kinds_the_key_takes(tree: dict[str, Any], expected: str) -> None:
    """Once per key, in the file's own words: not one line per member of a union under
    pydantic's schema tags, nor a model's class name, nor "Value error, "."""
    with pytest.raises(ConfigError) as caught:
        config_from_dict(tree, source="x.yaml")
    message = str(caught.value)
    assert expected in message
    assert message.count("'web") + message.count("'mcp") == 1
    for jargon in ("[", "instance of", "Settings", "Value error", "lax-or-strict", "SecretStr"):
        assert jargon not in message


@pytest.mark.parametrize(
    ("tree", "expected"),
    [
        ({"web": {"providers": {"brave": {"api_key": 1234567890}}}}, "'web.providers.brave.api_key': should be text or a list of text: "),
        ({"web": {"user_agent": 1.5}}, "'web.user_agent': should be text: "),
        ({"web": {"providers": {"brave": {"api_key": ["k1", True]}}}}, "'web.providers.brave.api_key': should be text or a list of text: "),
    ],
)
def test_text_yaml_read_as_a_number_says_to_quote_it(tree: dict[str, Any], expected: str) -> None:
    """``api_key: 1234567890`` said only that the key should be text, which it was in the file."""
    with pytest.raises(ConfigError) as caught:
        config_from_dict(tree, source="x.yaml")
    assert f"{expected}YAML reads this value as a number or as true or false, so put it in quotes" in str(caught.value)
    assert "1234567890" not in str(caught.value)


@pytest.mark.parametrize(
    ("tree", "expected"),
    [
        ({"plugins": {"enabled": "myplugin"}}, "'plugins.enabled': should be a list, such as [a, b] (a single item too: [a])"),
        ({"web": {"allowed_hosts": "example.com"}}, "'web.allowed_hosts': should be a list, such as [a, b]"),
        ({"web": {"providers": ["brave"]}}, "'web.providers': should be a mapping (name: value lines indented beneath it)"),
    ],
)
def test_one_name_where_a_list_goes_says_how_a_list_is_written(tree: dict[str, Any], expected: str) -> None:
    """It was pydantic's "Input should be a valid list" (or "dictionary"): true, but not what to write."""
    with pytest.raises(ConfigError) as caught:
        config_from_dict(tree, source="x.yaml")
    assert expected in str(caught.value)
    assert "Input should be" not in str(caught.value)


@pytest.mark.parametrize(
    ("entry", "why"),
    [
        ("wiki.corp.example:8080", "a port matches no host"),
        ("http://wiki.corp.example/", "a URL or an address range matches no host"),
        ("10.0.0.0/8", "a URL or an address range matches no host"),
        ("*", "it is not a host name, an address or *. and a domain"),
        ("münchen.corp.example", "an international name is matched in its ASCII form"),
    ],
)
def test_an_allowed_host_that_can_match_no_url_is_refused(entry: str, why: str) -> None:
    """Such an entry was taken and opened nothing: the URL it was meant for stayed refused
    with a sentence saying to list its host in web.allowed_hosts, where it was."""
    with pytest.raises(ConfigError) as caught:
        config_from_dict({"web": {"allowed_hosts": ["wiki.corp.example", entry]}}, source="x.yaml")
    assert f"'web.allowed_hosts': '{entry}' is not a host: {why}" in str(caught.value)


def test_allowed_hosts_take_names_addresses_and_subdomain_patterns() -> None:
    entries = ["Wiki.Corp.Example.", "*.intra.example", "10.20.0.15", "[fd00::5]", "fd00::6", "build_box"]
    assert config_from_dict({"web": {"allowed_hosts": entries}}, source="x.yaml").web.allowed_hosts == entries


def test_an_allowed_host_with_a_password_is_refused_without_echoing_it() -> None:
    with pytest.raises(ConfigError) as caught:
        config_from_dict({"web": {"allowed_hosts": ["http://admin:Pw0rdSecret@wiki.corp/"]}}, source="x.yaml")
    assert "'web.allowed_hosts': entry 1 is not a host" in str(caught.value)
    assert "Pw0rdSecret" not in str(caught.value)


def test_a_proxy_without_its_scheme_is_refused_saying_what_to_write() -> None:
    """``proxy: proxy.corp:3128``, as HTTPS_PROXY takes it, was refused without saying why."""
    with pytest.raises(ConfigError) as caught:
        config_from_dict({"web": {"proxy": "proxy.corp:3128"}}, source="x.yaml")
    assert str(caught.value).endswith(
        "'web.proxy': the proxy must be an http://, https://, socks5:// or socks5h:// URL with a host: "
        "it has no scheme, so write http:// before its host"
    )


def test_a_wrong_kind_under_a_union_key_keeps_its_siblings_problems() -> None:
    with pytest.raises(ConfigError) as caught:
        config_from_dict({"web": {"backend": 5, "timeout": "soon"}}, source="x.yaml")
    assert "'web.backend': should be" in str(caught.value)
    assert "'web.timeout': Input should be a valid number" in str(caught.value)


@pytest.mark.parametrize(
    ("web", "key", "why"),
    [
        ({"cache": {"url": "http://:Pw0rdSecret@cache.internal:6379/0"}}, "web.cache.url", "must start with redis://"),
        ({"cache": {"url": "cache.internal:6379"}}, "web.cache.url", "must start with redis://"),
        ({"cache": {"url": "redis://:Pw0rdSecret@cache.internal:63a9/0"}}, "web.cache.url", "its port is not a number"),
        ({"rate_limit": {"url": "rediss://:Pw0rdSecret@[::1/0"}}, "web.rate_limit.url", "its host in [ ] is not an IP address"),
        ({"rate_limit": {"url": "redis://:Pw0rdSecret@limits.internal:99999"}}, "web.rate_limit.url", "its port is outside 0 to 65535"),
        ({"usage": {"url": "redis://:Pw0rdSecret@usage.internal:port/0"}}, "web.usage.url", "its port is not a number"),
        ({"usage": {"url": "unix://"}}, "web.usage.url", "names no socket"),
        ({"usage": {"url": "sqlite:///"}}, "web.usage.url", "names no file"),
        ({"usage": {"url": "sqlite:///var/lib/webproviders/"}}, "web.usage.url", "names no file"),
        (
            {"cache": {"url": "rediss://:Pw0rdSecret@cache.internal:6380/0?ssl_cert_reqs=sometimes"}},
            "web.cache.url", "has a setting the Redis client cannot read (Invalid SSL Certificate Requirements Flag",
        ),
        (
            {"usage": {"url": "redis://:Pw0rdSecret@usage.internal:6379/0?ssl_cert_reqs=required"}},
            "web.usage.url", "has a setting the Redis client does not take at a redis:// address: ssl_cert_reqs",
        ),
        (
            {"rate_limit": {"url": "redis://:Pw0rdSecret@limits.internal:6379/0?socket_timout=1"}},
            "web.rate_limit.url", "does not take at a redis:// address: socket_timout",
        ),
        ({"proxy": "ftp://user:Pw0rdSecret@proxy.internal:3128"}, "web.proxy", "http://, https://, socks5://"),
        ({"proxy": "proxy.internal:3128"}, "web.proxy", "http://, https://, socks5://"),
        ({"proxy": "http://user:Pw0rdSecret@proxy.internal:31x8"}, "web.proxy", "its port is not a number"),
        ({"user_agent": "agent/1.0\r\nX-Injected: 1"}, "web.user_agent", "printable ASCII on one line"),
        ({"user_agent": "naïve-agent/1.0"}, "web.user_agent", "printable ASCII on one line"),
    ],
)
def test_a_setting_no_request_could_be_sent_with_is_refused_when_the_config_loads(
    web: dict[str, Any], key: str, why: str
) -> None:
    """Before, each of these made every call fail as the provider's fault (or, for the usage
    ledger, dropped every row with no word in the envelope); now the config names the key,
    says what is wrong, and never repeats a URL, which may hold a password."""
    with pytest.raises(ConfigError) as caught:
        config_from_dict({"web": web}, source="x.yaml")
    assert f"'{key}'" in str(caught.value) and why in str(caught.value)
    assert "Pw0rdSecret" not in str(caught.value)


@pytest.mark.parametrize(
    "web",
    [
        {"cache": {"url": "redis://:pw@cache.internal:6379/0"}},
        {"cache": {"url": "unix:///run/redis.sock"}},
        {"rate_limit": {"url": "rediss://[::1]:6380"}},
        {"usage": {"url": "sqlite:///var/lib/usage.sqlite3"}},
        {"proxy": "socks5h://user:pw@127.0.0.1:1080"},
        {"proxy": "https://proxy.internal"},
    ],
)
def test_store_and_proxy_urls_clients_read_are_kept(web: dict[str, Any]) -> None:
    config = config_from_dict({"web": web}, source="x.yaml")
    section, value = next(iter(web.items()))
    assert (getattr(config.web, section).url if isinstance(value, dict) else config.web.proxy) == (
        value["url"] if isinstance(value, dict) else value
    )


def test_invalid_yaml_is_a_config_error(tmp_path: Path) -> None:
    path = tmp_path / "broken.yaml"
    path.write_text("web: [unclosed\n")
    with pytest.raises(ConfigError, match="not valid YAML"):
        load_config(path)


@pytest.mark.parametrize("text", ["web:\n\tbackend: stub\n", "web:\n  backend:\tstub\n"], ids=["indent", "after colon"])
def test_a_tab_in_the_file_is_named_as_one_with_what_to_write(text: str, tmp_path: Path) -> None:
    """An editor's tab read only as "found character '\\t' that cannot start any token"."""
    path = tmp_path / "config.yaml"
    path.write_text(text, encoding="utf-8")
    with pytest.raises(ConfigError) as caught:
        load_config(path)
    assert str(caught.value).endswith(
        "(line 2, column " + str(text.splitlines()[1].index("\t") + 1) + "); YAML takes spaces there, not a tab: "
        "indent with spaces, and write a space after a colon."
    )


SECRET = "sk-live-9f8e7d6c5b4a3f2e1d0c"
BROKEN_KEY_LINES = {
    "mapping on the key line": f"web:\n  providers:\n    brave:\n      api_key: {SECRET}: oops\n",
    "unclosed quote": f'web:\n  providers:\n    brave:\n      api_key: "{SECRET}\n      timeout: 3\n',
    "key as a tag": f"web:\n  providers:\n    brave:\n      api_key: !{SECRET} x\n",
    "bad indentation": f"web:\n  providers:\n    brave:\n      api_key: {SECRET}\n     timeout: [\n",
}


@pytest.mark.parametrize("text", BROKEN_KEY_LINES.values(), ids=BROKEN_KEY_LINES)
def test_a_yaml_error_never_shows_the_key(text: str, tmp_path: Path) -> None:
    path = tmp_path / "config.yaml"
    path.write_text(text, encoding="utf-8")
    with pytest.raises(ConfigError, match="not valid YAML") as caught:
        load_config(path)
    message = str(caught.value)
    assert SECRET not in message and SECRET[:12] not in message
    assert "(line " in message  # still says where to look


def test_a_yaml_error_keeps_the_characters_it_names(tmp_path: Path) -> None:
    """What the parser expected and found stays readable; only fragments of the file are masked."""
    path = tmp_path / "config.yaml"
    path.write_text("web:\n  timeout: [1, 2\n  backend: x\n", encoding="utf-8")
    with pytest.raises(ConfigError) as caught:
        load_config(path)
    assert "expected ',' or ']', but got ':' (line 3, column 10)" in str(caught.value)


def test_a_yaml_error_reaches_neither_stderr_nor_the_envelope_with_the_key(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    import json
    import os
    import subprocess
    import sys

    from webproviders import dispatch_search
    from webproviders.config import set_default_config

    path = tmp_path / "config.yaml"
    path.write_text(BROKEN_KEY_LINES["mapping on the key line"], encoding="utf-8")
    cli = subprocess.run(
        [sys.executable, "-m", "webproviders.cli", "--config", str(path), "search", "x"],
        capture_output=True, text=True, timeout=60, env=dict(os.environ),
    )
    assert cli.returncode != 0 and "not valid YAML" in cli.stderr
    assert SECRET[:12] not in cli.stderr + cli.stdout
    monkeypatch.setenv("WEBPROVIDERS_CONFIG", str(path))
    set_default_config(None)
    try:
        envelope = dispatch_search("x")
    finally:
        set_default_config(None)
    assert envelope["success"] is False and "not valid YAML" in envelope["error"]
    assert SECRET[:12] not in json.dumps(envelope)


def test_a_config_file_the_variable_names_and_no_one_can_read_says_the_variable_named_it(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    """``WEBPROVIDERS_CONFIG`` left set to a file since moved: "Cannot read config file
    /old/config.yaml" named a path the user never typed, with nothing said of where it came from."""
    missing = tmp_path / "moved" / "config.yaml"
    monkeypatch.setenv("WEBPROVIDERS_CONFIG", str(missing))
    with pytest.raises(ConfigError) as raised:
        load_config()
    assert str(raised.value) == (
        f"Cannot read config file {missing} (named by $WEBPROVIDERS_CONFIG): No such file or directory."
    )
    with pytest.raises(ConfigError) as given:
        load_config(missing)  # the path given is the one typed: nothing to add
    assert str(given.value) == f"Cannot read config file {missing}: No such file or directory."


@pytest.mark.parametrize("how", ["sync", "async"])
def test_a_broken_config_is_not_configured_in_the_envelope(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch, how: str
) -> None:
    import asyncio

    from webproviders import adispatch_crawl, dispatch_search
    from webproviders.config import set_default_config

    path = tmp_path / "config.yaml"
    path.write_text("web:\n  cache: 5\n", encoding="utf-8")  # a lazy section of the wrong type
    monkeypatch.setenv("WEBPROVIDERS_CONFIG", str(path))
    set_default_config(None)
    try:
        if how == "sync":
            envelope = dispatch_search("x", backend="stub")
        else:
            envelope = asyncio.run(adispatch_crawl("https://example.com/", backend="stub"))
    finally:
        set_default_config(None)
    assert envelope["success"] is False and envelope["error_code"] == "not_configured"
    assert envelope["error"].startswith(f"Invalid configuration in {path}: 'web.cache'")
    assert envelope["meta"]["attempts"] == []


@pytest.mark.parametrize("config", ["config.yaml", {"web": {"timeout": 5}}])
def test_a_config_that_is_no_config_object_is_invalid_input(config: Any) -> None:
    from webproviders import dispatch_search

    envelope = dispatch_search("x", backend="stub", config=config)
    assert envelope["error_code"] == "invalid_input"
    assert "config must be a Config (from load_config or config_from_dict)" in envelope["error"]


def test_a_character_yaml_refuses_is_a_config_error_saying_where(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    """A NUL (a file saved as UTF-16 without its byte-order mark reads as UTF-8 full of them)
    or a stray control character raised PyYAML's ReaderError out of load_config, the CLI
    exited 1, and a call that loads the config itself answered provider_error."""
    from webproviders.config import set_default_config

    path = tmp_path / "config.yaml"
    path.write_bytes("web:\n  timeout: 5\n".encode("utf-16-le"))
    with pytest.raises(ConfigError) as caught:
        load_config(path)
    assert str(caught.value) == (
        f"Config file {path} is not valid YAML: it holds U+0000 (line 1, column 2), a character YAML "
        "does not allow (a file saved as UTF-16 holds many: save it as UTF-8)."
    )
    path.write_bytes(b"web:\n  user_agent: agent\x07/1.0\n")
    monkeypatch.setenv("WEBPROVIDERS_CONFIG", str(path))
    set_default_config(None)
    envelope = dispatch_search("x", backend="stub")
    assert envelope["error_code"] == "not_configured"
    assert envelope["error"].endswith("it holds U+0007 (line 2, column 20), a character YAML does not allow.")


def test_a_variable_not_set_inside_a_longer_value_is_named(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch, caplog: pytest.LogCaptureFixture
) -> None:
    """``path: ${DATA_DIR}/usage.sqlite3`` with ``DATA_DIR`` unset wrote the ledger to
    ``/usage.sqlite3``, and ``redis://${REDIS_HOST}:6379/0`` used this host's Redis, without a
    word. A variable that is the whole value, or a whole item, still means "not set", silently."""
    path = tmp_path / "config.yaml"
    path.write_text(
        "web:\n"
        "  search_backend: '${PRIMARY},stub'\n"
        "  usage:\n"
        "    path: ${DATA_DIR}/usage.sqlite3\n"
        "  cache:\n"
        "    url: redis://${REDIS_HOST}:${REDIS_PORT}/0\n"
        "  providers:\n"
        "    brave:\n"
        "      api_key: ${BRAVE_KEY}\n"
        "      base_url: https://${BRAVE_HOST:-api.search.brave.com}/res\n",
        encoding="utf-8",
    )
    for name in ("PRIMARY", "DATA_DIR", "REDIS_HOST", "REDIS_PORT", "BRAVE_KEY", "BRAVE_HOST"):
        monkeypatch.delenv(name, raising=False)
    with caplog.at_level(logging.WARNING, logger="webproviders.config"):
        load_config(path)
    tail = "so the rest of its value is used without it: set the variable, or give a default (${NAME:-default})."
    assert caplog.messages == [
        f"Config key 'web.usage.path' in {path} (line 4) uses ${{DATA_DIR}}, which is not set, {tail}",
        f"Config key 'web.cache.url' in {path} (line 6) uses ${{REDIS_HOST}} and ${{REDIS_PORT}}, which are not set, {tail}",
    ]


def test_a_default_config_path_that_is_no_file_is_named(caplog: pytest.LogCaptureFixture) -> None:
    """A container's bind mount of a config.yaml its host lacked makes a folder there, and a
    moved file leaves a dead link: both were passed over in silence, and the process ran on
    the defaults with nothing saying the file was never read."""
    default = Path("~/.config/webproviders/config.yaml").expanduser()
    default.mkdir(parents=True)
    with caplog.at_level(logging.WARNING, logger="webproviders.config"):
        assert load_config().source == "defaults"
    assert caplog.messages == [f"The config file {default} is not a file, so it is not read; the defaults are used."]
    default.rmdir()
    default.symlink_to(default.parent / "moved.yaml")
    caplog.clear()
    with caplog.at_level(logging.WARNING, logger="webproviders.config"):
        assert load_config().source == "defaults"
    assert caplog.messages == [
        f"The config file {default} is a link to nothing, so it is not read; the defaults are used."
    ]


def test_a_config_file_that_is_not_utf8_is_a_config_error(tmp_path: Path) -> None:
    path = tmp_path / "config.yaml"
    path.write_bytes("web:\n  user_agent: café\n".encode("latin-1"))
    with pytest.raises(ConfigError, match=f"Config file {path} is not UTF-8 text .*save it as UTF-8"):
        load_config(path)


@pytest.mark.parametrize("path", ["", "  "])
def test_an_empty_config_path_is_said_to_be_empty(path: str) -> None:
    """``webproviders --config "$CFG"`` with ``CFG`` unset said "Cannot read config file .:
    Is a directory.", naming a folder no one gave."""
    with pytest.raises(ConfigError) as caught:
        load_config(path)
    assert str(caught.value) == (
        "The config file's path is empty, so it names no file; give the file's path "
        "(a variable that is not set gives an empty one)."
    )


@pytest.mark.parametrize(
    ("path", "held"),
    [
        ("config\x00.yaml", "a NUL character (\\0)"),
        ("config\ud800.yaml", "text that is not valid Unicode (a lone surrogate)"),
    ],
)
def test_a_config_path_no_file_can_have_is_a_config_error(path: str, held: str) -> None:
    """``open()`` refuses these with a ValueError, which came out of ``load_config`` bare."""
    with pytest.raises(ConfigError) as caught:
        load_config(path)
    assert str(caught.value) == f"The config file's path {path!r} holds {held}, so it names no file; give the file's path."


@pytest.mark.parametrize(
    ("section", "key"),
    [("cache", "path"), ("usage", "path"), ("usage", "url")],
)
def test_a_store_path_holding_a_nul_is_a_config_error_naming_its_key(section: str, key: str) -> None:
    """It loaded, and every call then went on without its cache or ledger, warning ``embedded null byte``."""
    value = "sqlite:////tmp/store\x00.db" if key == "url" else "/tmp/store\x00.db"
    with pytest.raises(ConfigError) as caught:
        config_from_dict({"web": {section: {key: value}}}, source="<test>")
    assert str(caught.value) == (
        f"Invalid configuration in <test>: 'web.{section}.{key}': a file's path cannot hold a NUL character (\\0); "
        "write the file's path"
    )


@pytest.mark.parametrize("web", [{"search_backend": {"brave", "ddgs"}}, {"backend": {"fuse": frozenset({"brave", "ddgs"})}}])
def test_a_backend_chain_given_as_a_set_is_refused(web: dict[str, Any]) -> None:
    """A set was taken as a list in its hash order, which changes from one process to the next."""
    key = next(iter(web))
    with pytest.raises(ConfigError) as caught:
        config_from_dict({"web": web}, source="<test>")
    assert str(caught.value) == (
        f"Invalid configuration in <test>: 'web.{key}': a set keeps no order, and a chain is tried in its order: "
        "write a list"
    )


def test_a_byte_that_is_not_utf8_is_named_with_its_line(tmp_path: Path) -> None:
    """It said only "byte 23 cannot be read", and editors count lines, not bytes."""
    path = tmp_path / "config.yaml"
    path.write_bytes("# settings\nweb:\n  user_agent: café\n".encode("latin-1"))
    with pytest.raises(ConfigError) as caught:
        load_config(path)
    assert str(caught.value) == (
        f"Config file {path} is not UTF-8 text (line 3: byte 34, 0xE9, cannot be read); save it as UTF-8."
    )


def test_a_config_path_naming_something_huge_is_refused_unread(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    """A 10 MB file (a log, a data set named by mistake) held the first call 8 s in the YAML
    parser, and ``WEBPROVIDERS_CONFIG=/dev/zero`` read until memory ran out (the call then
    answered provider_error, MemoryError). A pipe of a few lines still reads as a file."""
    big = tmp_path / "big.yaml"
    big.write_text("web:\n  timeout: 5\n" + "# padding\n" * 30_000, encoding="utf-8")
    from webproviders.config import set_default_config

    for path in (big, Path("/dev/zero")):
        monkeypatch.setenv("WEBPROVIDERS_CONFIG", str(path))
        set_default_config(None)
        envelope = dispatch_search("x", backend="stub", timeout=30)
        assert envelope["error_code"] == "not_configured"
        assert envelope["error"] == (
            f"Config file {path} is larger than 256 KiB; a config sets a few dozen keys (the commented "
            "example is 14 KB): is it the right file?"
        )
    read, write = os.pipe()
    os.write(write, b"web:\n  timeout: 7\n")
    os.close(write)
    try:
        assert load_config(f"/dev/fd/{read}").web.timeout == 7
    finally:
        os.close(read)


def test_the_example_s_cache_url_line_uncommented_selects_redis(
    tmp_path: Path, caplog: pytest.LogCaptureFixture
) -> None:
    """config.example.yaml kept ``backend: memory`` above its commented ``url:`` line: a fleet
    that uncommented the URL, as the comment beside it says to, got a cache per process, and
    nothing said the URL went unread. A backend that does not read the key now says so."""
    example = (Path(__file__).resolve().parents[2] / "config.example.yaml").read_text(encoding="utf-8")
    line = "    # url: redis://cache.internal:6379/0"
    assert line in example
    path = tmp_path / "config.yaml"
    path.write_text(example.replace(line, line.replace("# ", "", 1)), encoding="utf-8")
    assert load_config(path).web.cache.backend == "redis"
    path.write_text("web:\n  cache:\n    backend: memory\n    url: redis://:Pw0rdSecret@cache.internal:6379/0\n")
    with caplog.at_level(logging.WARNING, logger="webproviders.config"):
        assert load_config(path).web.cache.backend == "memory"
    assert caplog.messages == [
        f"Config key 'web.cache.url' in {path} (line 4) is not used: web.cache.backend is memory, and only "
        "the redis backend reads it. Set backend: redis (or leave backend out) to use it."
    ]


@pytest.mark.parametrize(
    ("section", "url", "said"),
    [
        ("cache", "redis://cache.internal:6379/0", "web.cache.url selects the redis backend, and only the sqlite "
         "backend reads it. Set backend: sqlite (or leave url out) to use it."),
        ("usage", "redis://ledger.internal:6379/0", "web.usage.url names the ledger. Leave one of them out (a "
         "SQLite file as url is sqlite:///path)."),
    ],
)
def test_a_store_path_beside_a_url_is_named_as_unread(
    section: str, url: str, said: str, tmp_path: Path, caplog: pytest.LogCaptureFixture
) -> None:
    """Uncommenting both the ``url:`` and the ``path:`` line of the example's cache (or usage
    ledger) section uses the url, which reads no path: the file named went unused without a
    word, where docs/configuration.md says such a path is named."""
    path = tmp_path / "config.yaml"
    path.write_text(f"web:\n  {section}:\n    url: {url}\n    path: /var/lib/webproviders.sqlite3\n")
    with caplog.at_level(logging.WARNING, logger="webproviders.config"):
        assert getattr(load_config(path).web, section).url == url
    assert caplog.messages == [f"Config key 'web.{section}.path' in {path} (line 4) is not used: {said}"]


def test_an_unset_variable_drops_out_of_the_plugin_lists(monkeypatch: pytest.MonkeyPatch) -> None:
    """``enabled: ["${EXTRA}"]`` with EXTRA unset enabled a plugin named '' (as a path, an unset
    variable already dropped out)."""
    monkeypatch.delenv("WP_TEST_EXTRA_PLUGIN", raising=False)
    config = config_from_dict({"plugins": {"enabled": ["${WP_TEST_EXTRA_PLUGIN}", "mine"], "disabled": [" "]}})
    assert config.plugins.enabled == ["mine"] and config.plugins.disabled == []


@pytest.mark.parametrize(("value", "on"), [("false", False), ("Off", False), ("0", False), ("true", True), ("", True)])
def test_cache_and_usage_switched_by_a_variable(value: str, on: bool) -> None:
    """``${VAR}`` always gives text: ``cache: ${CACHE}`` with CACHE=false was refused as
    "should be true, false or a mapping", so no deployment could turn the cache or the ledger
    off from its environment; unset, it is not set (the defaults), as for every other key."""
    config = config_from_dict(
        {"web": {"cache": "${CACHE}", "usage": "${USAGE}"}}, environ={"CACHE": value, "USAGE": value}
    )
    assert (config.web.cache.enabled, config.web.usage.enabled) == (on, on)


@pytest.mark.parametrize("value", ["thirty", "-1", "0", "5000", "inf", "nan"])
def test_a_web_timeout_out_of_range_names_the_variable(monkeypatch: pytest.MonkeyPatch, value: str) -> None:
    """Before, an out-of-range value was blamed on the config file ("Invalid configuration in
    r2.yaml", or "in defaults" with no file at all)."""
    monkeypatch.setenv("WEB_TIMEOUT", value)
    with pytest.raises(ConfigError) as caught:
        config_from_dict({}, source="r2.yaml")
    assert str(caught.value) == "WEB_TIMEOUT must be a number of seconds above 0 and at most 3600, such as 20."


def test_a_web_timeout_over_an_hour_is_refused_when_the_file_loads(tmp_path: Path) -> None:
    """It loaded, then every call failed as the caller's invalid_input (CLI exit 2) though no
    caller gave a timeout."""
    path = tmp_path / "config.yaml"
    path.write_text("web:\n  timeout: 5000\n")
    with pytest.raises(ConfigError, match=r"'web.timeout' \(line 2\): Input should be less than or equal to 3600"):
        load_config(path)
    path.write_text("web:\n  timeout: 3600\n")
    assert load_config(path).web.timeout == 3600


def test_a_billion_laughs_config_fails_fast(tmp_path: Path) -> None:
    from concurrent.futures import ThreadPoolExecutor

    levels = ['a: &a ["lol","lol","lol","lol","lol","lol","lol","lol","lol","lol"]']
    for name, previous in zip("bcdefgh", "abcdefg", strict=True):
        levels.append(f"{name}: &{name} [" + ",".join(f"*{previous}" for _ in range(10)) + "]")
    text = "\n".join(levels) + "\nweb:\n  allowed_hosts: *h\n"
    assert len(text.encode()) < 1024  # a tiny file that would expand to 10**8 strings
    path = tmp_path / "laughs.yaml"
    path.write_text(text, encoding="utf-8")
    with ThreadPoolExecutor(1) as pool, pytest.raises(ConfigError, match="aliases") as caught:
        pool.submit(load_config, path).result(timeout=60)
    assert "at most 10,000" in str(caught.value)


def test_aliases_within_the_bound_still_work(tmp_path: Path) -> None:
    path = tmp_path / "anchors.yaml"
    path.write_text(
        "hosts: &hosts [wiki.corp.example, 10.20.0.15]\n"
        "web:\n  allowed_hosts: *hosts\n  providers:\n    brave: &p {timeout: 3}\n    tavily: *p\n",
        encoding="utf-8",
    )
    config = load_config(path)
    assert config.web.allowed_hosts == ["wiki.corp.example", "10.20.0.15"]
    assert config.provider("tavily").timeout == 3


def test_self_referencing_aliases_and_deep_nesting_are_config_errors(tmp_path: Path) -> None:
    cyclic = tmp_path / "cyclic.yaml"
    cyclic.write_text("web:\n  allowed_hosts: &a [*a]\n", encoding="utf-8")
    with pytest.raises(ConfigError, match="refers to its own anchor"):
        load_config(cyclic)
    deep = tmp_path / "deep.yaml"
    deep.write_text("web: " + "[" * 50_000 + "]" * 50_000 + "\n", encoding="utf-8")
    with pytest.raises(ConfigError, match="nested too deeply"):
        load_config(deep)


def test_a_key_set_twice_in_the_file_is_named_with_its_lines(tmp_path: Path, caplog: pytest.LogCaptureFixture) -> None:
    """YAML keeps the last of two equal keys: a second ``web:`` appended to a file dropped the
    first one's budget without a word. Merge keys may repeat."""
    path = tmp_path / "twice.yaml"
    path.write_text(
        "base: &b {timeout: 3}\n"
        "web:\n  budget: {daily_usd: 5}\n  providers:\n    brave: {timeout: 2}\n    brave: {timeout: 4}\n"
        "    tavily:\n      <<: *b\n      <<: *b\n"
        "web:\n  backend: stub\n",
        encoding="utf-8",
    )
    with caplog.at_level(logging.WARNING, logger="webproviders.config"):
        config = load_config(path)
    assert config.web.backend == "stub"  # YAML's reading, unchanged
    messages = [r.getMessage() for r in caplog.records if "set twice" in r.getMessage()]
    assert messages == [
        f"Config key 'web.providers.brave' is set twice in {path} (lines 5 and 6); only the one on line 6 is used: merge the two.",
        f"Config key 'web' is set twice in {path} (lines 2 and 10); only the one on line 10 is used: merge the two.",
    ]


@pytest.mark.parametrize(
    ("text", "expected"),
    [
        # a provider name given as !!binary was taken as the name it decodes to, without a word
        ("web:\n  providers:\n    !!binary c2VhcnhuZw==: {base_url: 'http://127.0.0.1:1'}\n",
         "a key under 'web.providers' (line 3) is read by YAML as binary data (!!binary), not text; every key is a name: "
         "write the name as text."),
        ("? !!binary d2Vi\n: {timeout: 5}\n",
         "a key at the top level (line 1) is read by YAML as binary data (!!binary), not text"),
        # a user id of digits: 'mcp.users.123.[key]': should be text
        ("mcp:\n  users:\n    123: {token_file: /run/token}\n",
         "a key under 'mcp.users' (line 3) is read by YAML as a number, not text; every key is a name: put it in quotes."),
        ("web:\n  timeout: 5\n  yes: 3\n", "a key under 'web' (line 3) is read by YAML as true or false"),
        ("web:\n  ~: 3\n", "a key under 'web' (line 2) is read by YAML as null"),
        # a binary value was decoded into text, and sent as the key
        ("web:\n  providers:\n    brave:\n      api_key: !!binary aGVsbG8=\n",
         "'web.providers.brave.api_key' (line 4) is binary data (!!binary), not text: write it as text."),
        ("web:\n  search_backend: !!set {brave, ddgs}\n",
         "'web.search_backend' (line 2) is a set (!!set), which keeps no order: write a list."),
    ],
    ids=["binary-provider-name", "binary-section", "number-user-id", "switch", "null", "binary-value", "set-value"],
)
def test_a_key_that_is_not_text_or_a_value_of_a_yaml_only_type_is_named_with_its_line(
    text: str, expected: str, tmp_path: Path
) -> None:
    path = tmp_path / "c.yaml"
    path.write_text(text, encoding="utf-8")
    with pytest.raises(ConfigError) as caught:
        load_config(path)
    assert str(caught.value).startswith(f"Invalid configuration in {path}: {expected}")
    assert "aGVsbG8" not in str(caught.value) and "hello" not in str(caught.value)


@pytest.mark.parametrize(
    ("tree", "expected"),
    [
        ({"web": {"providers": {b"searxng": {"base_url": "http://127.0.0.1:1"}}}}, "a key under 'web.providers' is bytes"),
        ({"mcp": {"users": {123: {"token_file": "/run/token"}}}}, "a key under 'mcp.users' is int"),
        ({1: {}}, "a key at the top level is int"),
    ],
)
def test_a_dict_s_key_that_is_not_text_is_named(tree: dict[Any, Any], expected: str) -> None:
    with pytest.raises(ConfigError, match=f"^Invalid configuration in <dict>: {expected}, not text; every key is a name.$"):
        config_from_dict(tree)


def test_quoted_keys_and_merge_keys_are_text(tmp_path: Path) -> None:
    path = tmp_path / "c.yaml"
    path.write_text(
        "base: &b {token_file: /run/token}\nmcp:\n  users:\n    '123': {<<: *b}\n", encoding="utf-8"
    )
    assert list(load_config(path).mcp.users) == ["123"]


def test_a_file_s_unknown_keys_and_wrong_values_are_named_with_their_lines(
    tmp_path: Path, caplog: pytest.LogCaptureFixture
) -> None:
    """In a long file, 'web.providers.brave.timeout' alone sent a person looking for it."""
    path = tmp_path / "lines.yaml"
    path.write_text(
        "# my settings\nweb:\n  serch_backend: stub\n  providers:\n    brave:\n      timeout: soon\n"
        "  retry: {max_retries: many}\n",
        encoding="utf-8",
    )
    with caplog.at_level(logging.WARNING, logger="webproviders.config"), pytest.raises(ConfigError) as caught:
        load_config(path)
    assert [r.getMessage() for r in caplog.records] == [
        f"Unknown config key 'web.serch_backend' in {path} (line 3) is ignored. Did you mean 'search_backend'?"
    ]
    assert str(caught.value) == (
        f"Invalid configuration in {path}: 'web.providers.brave.timeout' (line 6): Input should be a valid number, "
        "unable to parse string as a number; 'web.retry.max_retries' (line 7): Input should be a valid integer, "
        "unable to parse string as an integer"
    )


def test_unknown_keys_warn_and_are_ignored(caplog: pytest.LogCaptureFixture) -> None:
    with caplog.at_level(logging.WARNING, logger="webproviders.config"):
        config = config_from_dict({"web": {"backend": "stub", "bakend": "x"}, "extra": 1}, source="c.yaml")
    assert config.web.backend == "stub"
    messages = " ".join(r.getMessage() for r in caplog.records)
    assert "'web.bakend'" in messages and "'extra'" in messages


def test_a_typo_of_a_key_is_named_with_the_key_it_was_likely_meant_for(
    caplog: pytest.LogCaptureFixture,
) -> None:
    """A misspelt key does nothing; the warning says which key it was likely meant to be, in a
    section, in a provider's shared settings (kept there, as vendor keys are) and in the name of
    a provider's section. Vendor keys that are no typo are not named."""
    from webproviders import list_providers

    with caplog.at_level(logging.WARNING):
        config = config_from_dict(
            {
                "web": {
                    "timout": 5,
                    "retry": {"max_retry": 3},
                    "providers": {
                        "brave": {"api_kye": "k-typo-1234", "timeout": 5},
                        "tavilly": {"api_key": "k-typo-5678"},
                        "http": {"url_timeout": 10, "max_depth": 1},
                        "searxng": {"api_key_header": "X-Key", "accept_language": "en"},
                    },
                },
                "plugin": {"enabled": []},
            },
            source="c.yaml",
        )
        list_providers(config)
    messages = [r.getMessage() for r in caplog.records if r.levelno == logging.WARNING]
    assert messages == [
        "Unknown config key 'web.timout' in c.yaml is ignored. Did you mean 'timeout'?",
        "Unknown config key 'web.retry.max_retry' in c.yaml is ignored. Did you mean 'max_retries'?",
        "Config key 'web.providers.brave.api_kye' in c.yaml is not a setting every provider reads. "
        "Did you mean 'api_key'?",
        "Unknown config key 'plugin' in c.yaml is ignored. Did you mean 'plugins'?",
        "Config section 'web.providers.tavilly' in c.yaml names no provider, so it is not used. "
        "Did you mean 'tavily'?",
    ]


def test_a_key_written_at_the_wrong_level_is_named_with_where_it_goes(
    tmp_path: Path, caplog: pytest.LogCaptureFixture
) -> None:
    """``search_backend:`` and ``providers:`` without their ``web:`` (or ``plugins:`` indented
    under it) were "ignored" without a hint, and the search ran on an auto-detected backend."""
    path = tmp_path / "c.yaml"
    path.write_text(
        "search_backend: stub\nproviders:\n  tavily: {api_key: k}\nweb:\n  plugins: {enabled: []}\n",
        encoding="utf-8",
    )
    with caplog.at_level(logging.WARNING, logger="webproviders.config"):
        load_config(path)
    assert caplog.messages == [
        f"Unknown config key 'search_backend' in {path} (line 1) is ignored. Did you mean 'web.search_backend'?",
        f"Unknown config key 'providers' in {path} (line 2) is ignored. Did you mean 'web.providers'?",
        f"Unknown config key 'web.plugins' in {path} (line 5) is ignored. Did you mean 'plugins'?",
    ]


def test_a_variable_the_config_does_not_expand_is_named_not_sent_unsaid(
    tmp_path: Path, caplog: pytest.LogCaptureFixture
) -> None:
    """``api_key: $TAVILY_API_KEY`` (a shell's way) was sent as the key itself, and the vendor's
    refusal read as a wrong key; so was ``${KEY:?unset}``. A ``$`` inside a password is no variable."""
    path = tmp_path / "c.yaml"
    path.write_text(
        "web:\n  providers:\n    tavily:\n      api_key: $MY_TAVILY_KEY\n"
        "    brave:\n      api_key: ${MY_BRAVE_KEY:?set it}\n"
        "    exa:\n      api_key: ${EXA_KEY:-exa-Default0Key0Given}\n"
        "    local:\n      dsn: postgresql://pages:pa$Word@db.internal/pages\n",
        encoding="utf-8",
    )
    with caplog.at_level(logging.WARNING, logger="webproviders.config"):
        load_config(path)
    said = (
        "holds a variable written in a form the config does not expand, so it is used as written: "
        "write ${NAME} (or ${NAME:-default}), not $NAME or ${NAME:?...}."
    )
    assert caplog.messages == [
        f"Config key 'web.providers.tavily.api_key' in {path} (line 4) {said}",
        f"Config key 'web.providers.brave.api_key' in {path} (line 6) {said}",
    ]


def test_a_key_written_without_its_unit_is_named_with_the_key_meant(caplog: pytest.LogCaptureFixture) -> None:
    """``budget: {daily: 5}`` was "ignored" with no hint, so the cap the operator meant to set
    did nothing; a name that only one key completes (``daily_usd``) is now suggested."""
    with caplog.at_level(logging.WARNING, logger="webproviders.config"):
        config = config_from_dict(
            {"web": {"budget": {"daily": 5}, "usage": {"retention": 40}}}, source="c.yaml"
        )
    assert config.web.budget.daily_usd is None
    assert caplog.messages == [
        "Unknown config key 'web.budget.daily' in c.yaml is ignored. Did you mean 'daily_usd'?",
        "Unknown config key 'web.usage.retention' in c.yaml is ignored. Did you mean 'retention_days'?",
    ]


def test_a_key_a_provider_does_not_read_is_named_where_its_manifest_lists_what_it_reads(
    caplog: pytest.LogCaptureFixture, tmp_path: Path
) -> None:
    """``concurency`` under the http provider did nothing, silently: the run used 8 at once.
    A key outside what the provider's manifest lists is named, with the key it was likely
    meant to be; keys it reads, shared keys, and providers whose manifest lists nothing (a
    third-party plugin) are not."""
    from webproviders import list_providers

    plugin = tmp_path / "plugins" / "quiet"
    plugin.mkdir(parents=True)
    (plugin / "plugin.yaml").write_text(
        "name: quiet\nkind: backend\nproviders:\n  - name: quiet\n    capabilities: [search]\n"
    )
    (plugin / "__init__.py").write_text("def register(ctx):\n    pass\n")
    with caplog.at_level(logging.WARNING):
        config = config_from_dict(
            {
                "web": {
                    "providers": {
                        "http": {"concurency": 4, "url_timeout": 10, "max_pages": 5, "timeout": 9},
                        "tavily": {"serch_depth": "advanced", "search_depth": "basic"},
                        "brave": {"model": "x"},
                        "exa": {"type": "neural", "contents": "text"},
                        "quiet": {"anything": 1},
                    },
                },
                "plugins": {"paths": [str(tmp_path / "plugins")], "enabled": ["quiet"]},
            },
            source="c.yaml",
        )
        names = [row["name"] for row in list_providers(config)]
    assert "quiet" in names
    messages = [r.getMessage() for r in caplog.records if r.levelno == logging.WARNING]
    assert sorted(messages) == [
        "Config key 'web.providers.brave.model' in c.yaml is not one brave reads, so it does nothing. "
        "Its own keys: extra_snippets.",
        "Config key 'web.providers.http.concurency' in c.yaml is not one http reads, so it does nothing. "
        "Did you mean 'concurrency'?",
        "Config key 'web.providers.tavily.serch_depth' in c.yaml is not one tavily reads, so it does "
        "nothing. Did you mean 'search_depth'?",
    ]


def test_provider_sections_keep_vendor_keys_and_several_api_keys() -> None:
    config = config_from_dict(
        {"web": {"providers": {"xai": {"api_key": ["k1-aaaa", "k2-bbbb, k3-cccc"], "model": "grok-x"}}}}
    )
    settings = config.provider("xai")
    assert settings.api_keys() == ["k1-aaaa", "k2-bbbb", "k3-cccc"]
    assert settings.option("model") == "grok-x"
    assert "k1-aaaa" not in repr(config)


def test_the_example_config_loads_without_warnings(caplog: pytest.LogCaptureFixture) -> None:
    example = Path(__file__).resolve().parents[2] / "config.example.yaml"
    from webproviders import list_providers

    with caplog.at_level(logging.WARNING, logger="webproviders"):
        config = load_config(example)
        list_providers(config)  # every provider key it shows is one its provider reads
    assert config.web.timeout == 30
    assert not [r.getMessage() for r in caplog.records if r.name in ("webproviders.config", "webproviders.registry")]


@pytest.mark.parametrize(
    ("web", "key"),
    [
        ({"timeout": float("inf")}, "web.timeout"),
        ({"budget": {"daily_usd": float("nan")}}, "web.budget.daily_usd"),
        ({"budget": {"per_tag": {"user": {"monthly_usd": float("inf")}}}}, "web.budget.per_tag.user.monthly_usd"),
        ({"providers": {"tavily": {"price": {"search": {"usd": float("inf")}}}}}, "web.providers.tavily.price.search.usd"),
        ({"providers": {"exa": {"price": {"credit_usd": float("nan")}}}}, "web.providers.exa.price.credit_usd"),
        ({"cache": {"ttl": {"search": "inf"}}}, "web.cache.ttl.search"),
    ],
)
def test_non_finite_numbers_are_refused_with_the_key_named(web: dict[str, Any], key: str) -> None:
    with pytest.raises(ConfigError) as caught:
        config_from_dict({"web": web})
    assert f"'{key}': Input should be a finite number" in str(caught.value)


def test_non_finite_numbers_in_a_yaml_file_are_refused(tmp_path: Path) -> None:
    path = tmp_path / "config.yaml"
    path.write_text("web:\n  budget:\n    daily_usd: .inf\n", encoding="utf-8")
    with pytest.raises(ConfigError, match=r"'web.budget.daily_usd' \(line 3\): Input should be a finite number"):
        load_config(path)


def test_every_key_a_built_in_provider_reads_is_in_its_manifest() -> None:
    """The warning above is only as right as the manifests' ``options``: every
    ``.option("key")`` a built-in plugin's code reads is listed (keys read in a loop are
    listed by hand)."""
    import re

    from webproviders.manifest import read_manifest

    plugins = Path(__file__).resolve().parents[2] / "plugins"
    for folder in sorted(p for p in plugins.iterdir() if (p / "plugin.yaml").exists()):
        manifest = read_manifest(folder)
        code = " ".join(path.read_text() for path in folder.rglob("*.py"))
        read = set(re.findall(r"\.option\(\s*\"([a-z_]+)\"", code))
        for provider in manifest.providers:
            assert provider.options is not None, provider.name
            assert read <= provider.read_keys(), (provider.name, sorted(read - provider.read_keys()))
