"""The sandbox: escapes contained, each with a clear result and the host unharmed; limits named; calls of harness
functions over the channel; warm processes that share nothing; interrupt; the weaker fallback says so.

Nothing here sends traffic off this machine: the network checks look for interfaces and for a listener that the
test itself opens on the host's 127.0.0.1."""

from __future__ import annotations

import asyncio
import os
import socket
import uuid
from pathlib import Path

import pytest

from toollab.sandbox import Limits, SandboxedPython, python_tool
from toollab.sandbox import bwrap as bwrap_module
from toollab.tools import ToolError

needs_bwrap = pytest.mark.skipif(not bwrap_module.works(), reason=f"bwrap cannot run: {bwrap_module.why_not()}")
TIGHT = Limits(cpu_seconds=1, wall_seconds=8, memory_mb=256, processes=16, output_bytes=4096)


def run(code: str, limits: Limits = TIGHT, isolation: str = "bwrap", **kwargs: object):
    async def go():
        async with SandboxedPython(limits, isolation=isolation, warm=0) as sandbox:  # type: ignore[arg-type]
            return await sandbox.run(code, **kwargs)  # type: ignore[arg-type]

    return asyncio.run(go())


def _running(marker: str) -> bool:
    for pid in filter(str.isdigit, os.listdir("/proc")):
        try:
            if marker in Path(f"/proc/{pid}/cmdline").read_bytes().replace(b"\0", b" ").decode():
                return True
        except OSError:
            continue
    return False


@needs_bwrap
@pytest.mark.parametrize(
    ("code", "limit"),
    [
        ("while True: pass", "cpu_time"),
        ("9**9**9", "cpu_time"),
        ("x = bytearray(10 * 1024**3)", "memory"),
        ("import os\nwhile True: os.fork()", "processes"),
        ("open('big', 'wb').write(b'0' * (40 * 1024 * 1024))", "file_size"),
        ("files = [open('/dev/null') for _ in range(10_000)]", "open_files"),
        ("import sys\nfor _ in range(1024): sys.stdout.write('x' * 2**20)", "output"),
        ("import time; time.sleep(60)", "wall_time"),
    ],
)
def test_each_limit_stops_the_program_and_is_named(code, limit):
    limits = TIGHT.model_copy(update={"wall_seconds": 3.0}) if limit == "wall_time" else TIGHT
    limits = limits.model_copy(update={"file_size_mb": 8}) if limit == "file_size" else limits
    result = run(code, limits)
    assert result.limit == limit, result
    assert f"{limit.replace('_', ' ')} limit" in result.observation()
    assert result.seconds < 30
    if limit == "output":
        assert result.truncated and len(result.stdout) == limits.output_bytes


@needs_bwrap
def test_the_file_system_is_its_own(tmp_path):
    secret = tmp_path / "secret.txt"
    secret.write_text("host data")
    outside = Path("/tmp") / f"toollab-escape-{uuid.uuid4().hex}"
    code = f"""
import os
host_paths = ('/etc/shadow', {str(secret)!r}, '/root/.ssh', {str(Path.home() / ".ssh")!r})
for path in host_paths:
    print(path, os.path.exists(path))
for target in ('/usr/evil', {str(tmp_path / "evil")!r}):
    try:
        open(target, 'w').write('x')
        print('wrote', target)
    except OSError as exc:
        print('refused', target, type(exc).__name__)
open({str(outside)!r}, 'w').write('x')  # the sandbox's /tmp is its own
open('mine.txt', 'w').write('ok')
print('cwd', os.getcwd(), sorted(os.listdir('.')))
"""
    result = run(code)
    assert result.ok, result
    assert " True" not in result.stdout  # none of the host's paths exist inside
    assert "wrote" not in result.stdout and result.stdout.count("refused") == 2
    assert "cwd /work ['mine.txt']" in result.stdout
    assert not outside.exists() and not (tmp_path / "evil").exists()


@needs_bwrap
def test_the_environment_is_empty(monkeypatch):
    monkeypatch.setenv("TOOLLAB_TEST_SECRET", "s3cret")
    result = run("import os; print(sorted(os.environ))")
    assert "TOOLLAB_TEST_SECRET" not in result.stdout and "s3cret" not in result.stdout
    assert result.stdout.strip() == "['HOME', 'PATH']" or "LC_CTYPE" in result.stdout


@needs_bwrap
def test_no_network_but_its_own_loopback():
    with socket.create_server(("127.0.0.1", 0)) as server:  # a listener on the host's loopback
        server.settimeout(0.2)
        port = server.getsockname()[1]
        code = f"""
import socket
print(socket.if_nameindex())
try:
    socket.create_connection(('127.0.0.1', {port}), timeout=2)
    print('reached the host')
except OSError as exc:
    print('refused', type(exc).__name__)
"""
        result = run(code)
        with pytest.raises(TimeoutError):
            server.accept()  # nothing arrived
    assert result.ok, result
    assert "[(1, 'lo')]" in result.stdout and "refused ConnectionRefusedError" in result.stdout


@needs_bwrap
def test_a_child_left_running_dies_with_the_call_and_a_crash_leaves_the_harness_standing():
    marker = f"{uuid.uuid4().int % 10**6}.25"
    result = run(f"import subprocess; subprocess.Popen(['/bin/sleep', '{marker}']); print('started')")
    assert "started" in result.stdout and not _running(f"sleep {marker}")
    crash = run("import ctypes; ctypes.string_at(0)")  # a segmentation fault in the sandbox, not here
    assert crash.error is not None and "exit status" in crash.error and not crash.ok


@needs_bwrap
def test_the_smolagents_escapes_run_but_stay_inside(tmp_path):
    # CVE-2025-9959: class-hierarchy traversal to subprocess.Popen; CVE-2025-5120: getattr to restricted modules.
    target = tmp_path / "pwned"
    payloads = [
        "[c for c in ().__class__.__base__.__subclasses__() if c.__name__ == 'Popen'][0]"
        f"(['/bin/sh', '-c', 'cat /etc/shadow > {target}']).wait()",
        f"getattr(__import__('os'), 'system')('id > {target}')",
        f"import ctypes; ctypes.CDLL(None).system(b'touch {target}')",
    ]
    for code in payloads:
        result = run(code)
        assert result.limit is None, result
    assert not target.exists()


@needs_bwrap
def test_programs_call_harness_functions_over_the_channel():
    seen = []

    async def add(arguments):
        seen.append(arguments)
        return arguments["a"] + arguments["b"]

    async def broken(arguments):
        raise ValueError("b must be positive")

    code = """
print(add(a=2, b=40))
try:
    broken(b=-1)
except RuntimeError as exc:
    print('error:', exc)
try:
    add(1, 2)
except TypeError as exc:
    print('error:', exc)
"""
    result = run(code, functions={"add": add, "broken": broken})
    assert result.ok and result.tool_calls == 2, result
    assert result.stdout.splitlines() == [
        "42",
        "error: b must be positive",
        "error: add() takes keyword arguments only, e.g. add(x=1)",
    ]
    assert seen == [{"a": 2, "b": 40}]


@needs_bwrap
def test_warm_processes_share_nothing_and_interrupt_stops_a_run():
    async def go():
        async with SandboxedPython(TIGHT, isolation="bwrap", warm=2) as sandbox:
            first = await sandbox.run("open('left.txt', 'w').write('x'); secret = 1; print('a')")
            second = await sandbox.run("import os; print(os.listdir('.'), 'secret' in globals())")
            slow = asyncio.create_task(sandbox.run("import time; time.sleep(30)", limits=Limits(wall_seconds=60)))
            await asyncio.sleep(0.5)
            await sandbox.interrupt()
            return first, second, await asyncio.wait_for(slow, 10)

    first, second, stopped = asyncio.run(go())
    assert first.ok and second.stdout.strip() == "[] False"
    assert stopped.error is not None and stopped.error.startswith("interrupted")


def test_the_fallback_says_it_is_weaker_and_still_limits():
    result = run(
        "import socket\ntry:\n    socket.socket()\nexcept OSError as exc:\n    print(exc)", isolation="fallback"
    )
    assert result.isolation.startswith("rlimits-only") and "no network" in result.stdout
    assert run("while True: pass", isolation="fallback").limit == "cpu_time"
    assert run("x = bytearray(10 * 1024**3)", isolation="fallback").limit == "memory"


def test_the_wall_limit_holds_when_a_process_the_program_started_keeps_its_output_open():
    """In the fallback a program can start a process outside its group that holds stdout open past the program's
    end: the run still returns at the wall limit, with what was printed, instead of waiting for that process."""
    escape = (
        "import os, time\nready, told = os.pipe()\nchild = os.fork()\n"
        "if child == 0:\n    os.setsid()\n    if os.fork():\n        os._exit(0)\n"  # a daemon: nothing is above it
        "    print(os.getpid(), flush=True)\n    os.write(told, b'x')\n    time.sleep(120)\n    os._exit(0)\n"
        "os.waitpid(child, 0)\nos.read(ready, 1)\nprint('done')"
    )

    async def go():
        async with SandboxedPython(Limits(cpu_seconds=2, wall_seconds=6), isolation="fallback", warm=0) as sandbox:
            return await asyncio.wait_for(sandbox.run(escape), 60)  # it hung for the sleep's 120 s before

    result = asyncio.run(go())
    printed = result.stdout.split()
    if printed and printed[0].isdigit():  # the daemon's pid: it outlives the run in the fallback
        os.kill(int(printed[0]), 9)
    assert printed == [printed[0], "done"] and result.limit == "wall_time", result


@needs_bwrap
def test_python_as_a_tool():
    async def go():
        async with SandboxedPython(TIGHT, warm=0) as sandbox:
            tool = python_tool(sandbox)
            ok = await tool.bind({"code": "print(sum(range(10)))"})()
            with pytest.raises(ToolError, match="ZeroDivisionError"):  # an error result for the model
                await tool.bind({"code": "1/0"})()
            with pytest.raises(ToolError, match="print what you want to see"):
                await tool.bind({"code": "x = 1"})()
            with pytest.raises(ToolError, match="print what you want to see"):  # a None value shows nothing
                await tool.bind({"code": "None"})()
            shown = await tool.bind({"code": "x = 3\n(5.0 + x) * 2.0  # as in a REPL"})()
            both = await tool.bind({"code": "print('sum:')\n'a' + 'b'"})()
            with pytest.raises(ToolError, match="SyntaxError"):
                await tool.bind({"code": "(5.0 +"})()
            return tool, ok, shown, both

    tool, ok, shown, both = asyncio.run(go())
    assert tool.name == "python" and tool.check({}) != []
    assert ok == "45" and shown == "16.0" and both == "sum:\n'ab'"
