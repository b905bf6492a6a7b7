"""A process with no home directory, or one it may not enter, still dispatches (a real subprocess).

A container run under an arbitrary user id often has HOME unset and no entry for that id in
the password database; pathlib then cannot expand ``~``. The default config file and user
plugin folder are simply absent there, and the stores whose default file lives under the
home directory fail as a file that cannot be opened does: a warning, not a failed call, and
never a folder named ``~`` in the working directory. A home directory this user may not
enter (``HOME=/root`` left in the environment of a container run under another user id) is
the same: its config file and plugin folder are skipped with a warning.
"""

from __future__ import annotations

import json
import os
import subprocess
import sys
from pathlib import Path

import pytest

import webproviders

#: A generous bound on the whole script, which makes three calls of the stub provider.
BOUND = 60.0

_SCRIPT = """
import json, pwd

def no_entry(uid):
    raise KeyError(f"getpwuid(): uid not found: {uid}")

pwd.getpwuid = no_entry  # this user is in no password database

from webproviders import dispatch_search
from webproviders.config import config_from_dict

answers = [
    dispatch_search("hello", 2, backend="stub"),
    dispatch_search("hello", 2, backend="stub", config=config_from_dict({"web": {"cache": {"backend": "sqlite"}}})),
    dispatch_search("hello", 2, backend="local"),
]
print(json.dumps(answers))
"""


def test_a_process_without_a_home_directory_dispatches(tmp_path: Path) -> None:
    env = {
        k: v for k, v in os.environ.items() if k not in ("HOME", "XDG_DATA_HOME", "XDG_CACHE_HOME")
    }
    done = subprocess.run(
        [sys.executable, "-c", _SCRIPT],
        capture_output=True,
        text=True,
        timeout=BOUND,
        cwd=tmp_path,
        env=env,
    )
    assert done.returncode == 0, done.stderr[-3000:]
    default, sqlite_cache, local = json.loads(done.stdout)
    assert default["success"] and sqlite_cache["success"], (default, sqlite_cache)
    assert any(
        "cache (sqlite)" in w and "no home directory" in w for w in sqlite_cache["meta"]["warnings"]
    )
    assert local["error_code"] == "not_configured" and "web.providers.local.path" in local["error"]
    assert not (tmp_path / "~").exists()


#: The same calls with HOME a folder this user may not enter: root first takes another user
#: id (after a first call has imported what the calls need, from folders that user may not read).
_LOCKED_OUT_SCRIPT = """
import json, os
from webproviders import dispatch_search, list_providers
from webproviders.config import config_from_dict

dispatch_search("warm", 2, backend="stub", config=config_from_dict({"web": {"usage": False}}))
if os.geteuid() == 0:
    os.setegid(65534)
    os.seteuid(65534)
print(json.dumps({"answer": dispatch_search("hello", 2, backend="stub"), "rows": list_providers()}))
"""


def _closed_to_others(path: Path) -> bool:
    """Whether a folder above ``path`` is closed to other users (a checkout made in a
    ``mktemp -d`` folder, mode 0700): the other user id could not load the library from it."""
    return any(not parent.stat().st_mode & 0o001 for parent in path.parents)


def test_a_home_directory_this_user_may_not_enter_is_skipped_with_a_warning(tmp_path: Path) -> None:
    package = Path(webproviders.__file__).resolve().parent
    if os.geteuid() == 0 and _closed_to_others(package / "builtin_plugins"):
        pytest.skip(f"the library's folders ({package}) are closed to other users, as an installed library's are not")
    home = tmp_path / "home"
    (home / ".config" / "webproviders" / "plugins").mkdir(parents=True)
    (home / ".config" / "webproviders" / "config.yaml").write_text("web: {search_backend: stub}\n")
    home.chmod(0)
    try:
        done = subprocess.run(
            [sys.executable, "-c", _LOCKED_OUT_SCRIPT],
            capture_output=True,
            text=True,
            timeout=BOUND,
            cwd=tmp_path,
            env={**os.environ, "HOME": str(home)},
        )
    finally:
        home.chmod(0o700)
    assert done.returncode == 0, done.stderr[-3000:]
    result = json.loads(done.stdout)
    assert result["answer"]["success"], result["answer"]
    assert any(row["name"] == "stub" for row in result["rows"])
    assert (
        "config.yaml cannot be looked at (Permission denied); the defaults are used" in done.stderr
    )
    assert "plugins cannot be read (Permission denied); its plugins are skipped" in done.stderr


def test_a_relative_xdg_folder_is_ignored_as_the_specification_says(tmp_path: Path) -> None:
    """``XDG_CACHE_HOME=cache`` would put the cache file under whatever folder the process
    happens to start in; the specification says a relative value is to be ignored."""
    home, work = tmp_path / "home", tmp_path / "work"
    home.mkdir()
    work.mkdir()
    script = (
        "from webproviders import dispatch_search\n"
        "from webproviders.config import config_from_dict\n"
        "config = config_from_dict({'web': {'cache': {'backend': 'sqlite'}}})\n"
        "assert dispatch_search('hello', 2, backend='stub', config=config)['success']\n"
    )
    env = {**os.environ, "HOME": str(home), "XDG_CACHE_HOME": "relative-cache"}
    subprocess.run([sys.executable, "-c", script], cwd=work, env=env, check=True, timeout=BOUND)
    assert (home / ".cache" / "webproviders" / "cache.sqlite3").is_file()
    assert not (work / "relative-cache").exists()
