"""Idle kernels are culled with the hub settings a teacher copies (tools/hub_config.py).

The file's own Jupyter server arguments, with the idle timeout shortened from 30 minutes to
a few seconds and nothing else changed, start a real Jupyter server. Two kernels start, each
with a browser tab's connection (a websocket) kept open: one runs a line and goes idle, the
other runs a loop. The idle one is shut down by the server (culling works, also with a tab
open: ``cull_connected``); the busy one is not (culling stops kernels that ran nothing, never
a computation that is still going).
"""

from __future__ import annotations

import asyncio
import json
import os
import re
import secrets
import socket
import subprocess
import sys
import time
import uuid
from pathlib import Path

import pytest

ROOT = Path(__file__).resolve().parents[2]
HUB_CONFIG = ROOT / "tools" / "hub_config.py"
IDLE_SECONDS = 3  # instead of 1800
WAIT_LIMIT = 300  # seconds: a bound on waiting for the server, not a speed target

pytest.importorskip("jupyter_server")
pytest.importorskip("tornado")


def hub_settings() -> tuple[list[str], dict[str, str]]:
    """tools/hub_config.py's Spawner.args and Spawner.environment, read as JupyterHub does."""
    from traitlets.config import Config

    config = Config()
    exec(compile(HUB_CONFIG.read_text(encoding="utf-8"), str(HUB_CONFIG), "exec"),  # noqa: S102
         {"get_config": lambda: config})
    # The file extends and updates the spawner's defaults (empty here): lazy values.
    return (config.Spawner.args.get_value([]), config.Spawner.environment.get_value({}))


def test_the_hub_settings_cull_idle_kernels_even_with_a_tab_open():
    args, environment = hub_settings()
    options = dict(a.lstrip("-").split("=", 1) for a in args)
    assert options["MappingKernelManager.cull_idle_timeout"] == "1800"
    assert options["MappingKernelManager.cull_connected"] == "True"
    assert environment["OMP_NUM_THREADS"] == environment["OPENBLAS_NUM_THREADS"] == "1"


def _free_port() -> int:
    with socket.socket() as s:
        s.bind(("127.0.0.1", 0))
        return s.getsockname()[1]


def _message(code: str, session: str) -> str:
    return json.dumps({
        "header": {"msg_id": uuid.uuid4().hex, "username": "student", "session": session,
                   "msg_type": "execute_request", "version": "5.3"},
        "parent_header": {}, "metadata": {}, "channel": "shell",
        "content": {"code": code, "silent": False, "store_history": False,
                    "user_expressions": {}, "allow_stdin": False, "stop_on_error": True}})


async def _culling(base: str, token: str) -> dict:
    from tornado.httpclient import AsyncHTTPClient, HTTPClientError, HTTPRequest
    from tornado.websocket import websocket_connect

    client = AsyncHTTPClient()
    headers = {"Authorization": f"token {token}"}

    async def api(method: str, path: str, body: str | None = None):
        request = HTTPRequest(f"http://{base}{path}", method=method, headers=headers,
                              body=body, request_timeout=60)
        response = await client.fetch(request)
        return json.loads(response.body) if response.body else None

    deadline = time.monotonic() + WAIT_LIMIT
    while True:  # the server is up
        try:
            await api("GET", "/api/status")
            break
        except (ConnectionError, OSError, HTTPClientError):
            if time.monotonic() > deadline:
                raise
            await asyncio.sleep(0.5)

    async def kernel_with_tab(code: str):
        kernel = await api("POST", "/api/kernels", "{}")
        session = uuid.uuid4().hex
        tab = await websocket_connect(HTTPRequest(
            f"ws://{base}/api/kernels/{kernel['id']}/channels?session_id={session}",
            headers=headers))
        await tab.write_message(_message(code, session))
        return kernel["id"], tab

    async def state(kernel_id: str) -> str:
        for kernel in await api("GET", "/api/kernels"):
            if kernel["id"] == kernel_id:
                return kernel["execution_state"]
        return "gone"

    idle, idle_tab = await kernel_with_tab("x = 1")
    busy, busy_tab = await kernel_with_tab("import time\nwhile True:\n    time.sleep(0.05)")
    seen = {"idle": [], "busy": [], "ids": (idle, busy)}
    try:
        while await state(idle) != "gone":
            seen["idle"].append(await state(idle))
            seen["busy"].append(await state(busy))
            if time.monotonic() > deadline:
                break
            await asyncio.sleep(0.5)
        seen["idle"].append(await state(idle))
        # The busy kernel has now run longer than the idle timeout, and culling has run
        # after that (it just stopped the idle one): a last look, one more interval later.
        await asyncio.sleep(2)
        seen["busy"].append(await state(busy))
    finally:
        idle_tab.close()
        busy_tab.close()
        if await state(busy) != "gone":
            await api("DELETE", f"/api/kernels/{busy}")
    return seen


@pytest.mark.slow  # a real Jupyter server and the idle timeout waited out: make test-all (CI)
def test_an_idle_kernel_is_culled_and_a_busy_one_is_not(tmp_path):
    args, environment = hub_settings()
    short = [a.replace("cull_idle_timeout=1800", f"cull_idle_timeout={IDLE_SECONDS}")
             .replace("cull_interval=300", "cull_interval=1") for a in args]
    assert short != args and len(short) == len(args)
    port, token = _free_port(), secrets.token_hex(16)
    home = tmp_path / "home"
    home.mkdir()
    env = dict(os.environ, **environment, HOME=str(home), JUPYTER_RUNTIME_DIR=str(tmp_path),
               JUPYTER_CONFIG_DIR=str(home / ".jupyter"), JUPYTER_TOKEN=token)
    server = subprocess.Popen(
        [sys.executable, "-m", "jupyter_server", "--no-browser", "--ServerApp.ip=127.0.0.1",
         f"--ServerApp.port={port}", "--ServerApp.port_retries=0",
         f"--ServerApp.root_dir={tmp_path}", "--ServerApp.allow_root=True",
         *short],
        env=env, stdout=subprocess.DEVNULL, stderr=open(tmp_path / "server.log", "wb"))
    try:
        seen = asyncio.run(_culling(f"127.0.0.1:{port}", token))
    finally:
        server.terminate()
        try:
            server.wait(timeout=30)
        except subprocess.TimeoutExpired:
            server.kill()
    log = (tmp_path / "server.log").read_text(errors="replace")
    assert seen["idle"][-1] == "gone", (seen, log[-3000:])
    assert "idle" in seen["idle"], seen  # it ran its line, then sat idle until culled
    idle_id, busy_id = seen["ids"]  # the server says why: idle, with the tab still connected
    assert re.search(rf"Culling 'idle' kernel .*{idle_id}.* with 1 connections", log), log
    assert not re.search(rf"Culling .*{busy_id}", log), log
    busy = seen["busy"]  # from the moment it started its loop to the end: busy, never culled
    assert "busy" in busy and set(busy[busy.index("busy"):]) == {"busy"}, (seen, log[-3000:])
