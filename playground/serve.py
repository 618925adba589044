#!/usr/bin/env python3
"""Serves the playground (web/) on http://localhost:8000 (or the port given), with the headers that
make the page cross-origin isolated, as z3's threads (SharedArrayBuffer) need."""

import functools
import http.server
import pathlib
import sys


class Isolated(http.server.SimpleHTTPRequestHandler):
    extensions_map = {**http.server.SimpleHTTPRequestHandler.extensions_map, ".js": "text/javascript", ".mjs": "text/javascript", ".wasm": "application/wasm"}

    def end_headers(self):
        self.send_header("Cross-Origin-Opener-Policy", "same-origin")
        self.send_header("Cross-Origin-Embedder-Policy", "require-corp")
        self.send_header("Cache-Control", "no-store")
        super().end_headers()

    def log_message(self, *args):
        pass


if __name__ == "__main__":
    port = int(sys.argv[1]) if len(sys.argv) > 1 else 8000
    root = pathlib.Path(__file__).resolve().parent / "web"
    handler = functools.partial(Isolated, directory=str(root))
    with http.server.ThreadingHTTPServer(("127.0.0.1", port), handler) as server:
        print(f"lockstep playground on http://localhost:{server.server_address[1]}/", flush=True)
        server.serve_forever()
