"""Datasette browses and searches memories in llm's logs.db, against a real
Datasette started on 127.0.0.1 (skipped where Datasette is not installed)."""

import json
import socket
import subprocess
import sys
import time
import urllib.request

import pytest

from test_cli import run

pytest.importorskip("datasette")

# Runs Datasette with no entry-point plugins loaded: Datasette installed in
# an environment of its own, which knows nothing of this package.
WITHOUT_PLUGINS = "import sys; sys._called_from_test = True; from datasette.cli import cli; cli()"


def free_port() -> int:
    with socket.socket() as sock:
        sock.bind(("127.0.0.1", 0))
        return sock.getsockname()[1]


@pytest.fixture
def serve():
    processes = []

    def start(*args, plugins=True):
        port = free_port()
        launcher = ["-m", "datasette"] if plugins else ["-c", WITHOUT_PLUGINS]
        process = subprocess.Popen(
            [sys.executable, *launcher, "serve", *args, "-h", "127.0.0.1", "-p", str(port)],
            stdout=subprocess.DEVNULL, stderr=subprocess.PIPE,
        )
        processes.append(process)
        base = f"http://127.0.0.1:{port}"
        deadline = time.monotonic() + 30
        while time.monotonic() < deadline:
            try:
                urllib.request.urlopen(base + "/-/versions.json", timeout=1)
                return lambda path: json.load(urllib.request.urlopen(base + path, timeout=10))
            except OSError:
                if process.poll() is not None:
                    pytest.fail(f"datasette exited: {process.stderr.read().decode()}")
                time.sleep(0.1)
        pytest.fail("datasette did not start")

    yield start
    for process in processes:
        process.terminate()
        process.wait(timeout=10)


def add_memories(runner):
    for text in ("I am vegetarian", "I live in Porto", "I play the cello on Sundays"):
        run(runner, "add", text)


def searched(get, database, words):
    rows = get(f"/{database}/memories.json?_search={words}&_shape=array&_col=content")
    return sorted(row["content"] for row in rows)


def test_installed_beside_datasette_memories_are_searchable_with_no_setup(runner, user_path, serve):
    add_memories(runner)
    get = serve(str(user_path / "logs.db"))
    assert searched(get, "logs", "vegetarian") == ["I am vegetarian"]
    assert searched(get, "logs", "porto") == ["I live in Porto"]
    assert searched(get, "logs", "cello+sundays") == ["I play the cello on Sundays"]
    assert searched(get, "logs", "unicorn") == []


def test_datasette_from_another_environment_searches_with_the_printed_metadata(
    runner, user_path, serve, tmp_path
):
    add_memories(runner)
    database = str(user_path / "logs.db")
    bare = serve(database, plugins=False)
    # Without the metadata Datasette ignores the search: every row comes back.
    assert len(searched(bare, "logs", "vegetarian")) == 3
    metadata = tmp_path / "memories.json"
    metadata.write_text(run(runner, "datasette-metadata").output)
    get = serve(database, "-m", str(metadata), plugins=False)
    assert searched(get, "logs", "vegetarian") == ["I am vegetarian"]
    assert searched(get, "logs", "unicorn") == []
