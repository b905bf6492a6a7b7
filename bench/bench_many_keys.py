"""CPU a process spends masking when every call brings a key of its own (a tenant's, an MCP client's).

Run: python bench/bench_many_keys.py [--keys 1000] [--calls] [--same]

Masking alone (the default): ``--keys`` distinct keys are remembered one by one, each followed
by the five error sentences and the one answer a call scrubs; every key is then checked to be
still masked. With ``--calls``, as many Brave searches against a loopback Brave, each with a
config and key of its own (``--same``: one key for all, the cost of the configs alone).
"""

from __future__ import annotations

import argparse
import json
import resource
import threading
import time
from http.server import BaseHTTPRequestHandler, ThreadingHTTPServer


def key(index: int) -> str:
    return f"BSAk{index:06d}xQ7rT0123secretvalue"


def masking(keys: int) -> None:
    from webproviders import redact

    for i in range(keys):
        redact.remember(key(i))
        for j in range(5):
            assert redact.scrub(f"brave answered 401 (call {i}.{j}) for key {key(i)}").endswith("key ***")
        redact.scrub_data({"web": [{"title": "t", "description": f"page {i}"}]})
    assert all(redact.scrub(key(i)) == "***" for i in range(keys))


class Brave(BaseHTTPRequestHandler):
    def do_GET(self) -> None:
        body = json.dumps({"type": "search", "web": {"results": [
            {"title": "t", "url": "https://example.com/a", "description": "d"}]}}).encode()
        self.send_response(200)
        self.send_header("Content-Type", "application/json")
        self.send_header("Content-Length", str(len(body)))
        self.end_headers()
        self.wfile.write(body)

    def log_message(self, *args: object) -> None:
        pass


def calls(keys: int, same: bool) -> None:
    import webproviders
    from webproviders.config import config_from_dict

    server = ThreadingHTTPServer(("127.0.0.1", 0), Brave)
    threading.Thread(target=server.serve_forever, daemon=True).start()
    base_url = f"http://127.0.0.1:{server.server_address[1]}"
    for i in range(keys):
        brave = {"api_key": key(0 if same else i), "base_url": base_url}
        config = config_from_dict({"web": {"cache": False, "providers": {"brave": brave}}})
        assert webproviders.dispatch_search("heat pumps", backend="brave", config=config)["success"]
    server.shutdown()


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--keys", type=int, default=1000)
    parser.add_argument("--calls", action="store_true")
    parser.add_argument("--same", action="store_true")
    args = parser.parse_args()
    started = time.process_time()
    if args.calls:
        calls(args.keys, args.same)
    else:
        masking(args.keys)
    peak = resource.getrusage(resource.RUSAGE_SELF).ru_maxrss / 1024
    print(f"keys={args.keys} cpu={time.process_time() - started:.2f} s peak_rss={peak:.0f} MB")


if __name__ == "__main__":
    main()
