"""The program that runs inside the sandbox (standard library only; started as `python -I -c SOURCE`).

It starts, then waits on stdin for one request, so that a pool can keep started ones warm: the request carries
the code, the limits and the names of the functions the code may call. It lowers its own resource limits (they
cannot be raised again), puts a stub in place of each function that sends the call over a pipe to the harness and
waits for the answer (the narrow channel: JSON lines, one call at a time), runs the code (a last bare expression
prints its value, as in a REPL), and reports how it ended on the same pipe. stdout and stderr are the program's own.
"""

from __future__ import annotations


def main() -> None:
    import ast
    import errno
    import json
    import os
    import resource
    import signal
    import sys

    request = json.loads(sys.stdin.readline())
    sys.path.extend(request["paths"])  # the harness environment's packages, when asked for (read-only)
    channel = os.fdopen(request["channel"], "w", buffering=1, encoding="utf-8")
    replies = os.fdopen(request["replies"], "r", encoding="utf-8")
    limits = request["limits"]
    mb = 1024 * 1024
    cpu = max(1, round(limits["cpu_seconds"]))
    for which, value in (
        (resource.RLIMIT_CPU, (cpu, cpu + 1)),  # SIGXCPU at the soft limit, SIGKILL a second later
        (resource.RLIMIT_AS, (limits["memory_mb"] * mb,) * 2),
        (resource.RLIMIT_FSIZE, (limits["file_size_mb"] * mb,) * 2),
        (resource.RLIMIT_NPROC, (limits["processes"],) * 2),
        (resource.RLIMIT_NOFILE, (limits["open_files"],) * 2),
        (resource.RLIMIT_CORE, (0, 0)),
    ):
        resource.setrlimit(which, value)
    signal.signal(signal.SIGXCPU, signal.SIG_DFL)  # die at once, even inside one long C call like 9**9**9

    if request["block_sockets"]:  # the fallback's network stop (bwrap gives the sandbox no network at all)
        import socket

        def refused(*args: object, **kwargs: object) -> None:
            raise PermissionError("the sandbox has no network")

        socket.socket = socket.create_connection = socket.socketpair = refused  # type: ignore[assignment,misc]

    calls = [0]  # a list: the stubs count into it

    def stub(name: str) -> object:
        def call(*args: object, **kwargs: object) -> object:
            if args:
                raise TypeError(f"{name}() takes keyword arguments only, e.g. {name}(x=1)")
            calls[0] += 1
            channel.write(json.dumps({"call": name, "arguments": kwargs}, default=repr) + "\n")
            reply = json.loads(replies.readline() or '{"error": "the harness closed the channel"}')
            if "error" in reply:
                raise RuntimeError(reply["error"])
            return reply["value"]

        call.__name__ = name
        return call

    scope: dict[str, object] = {"__name__": "__main__"}
    scope.update({name: stub(name) for name in request["functions"]})
    report: dict[str, object] = {"done": True}
    try:
        # As in a REPL, a last bare expression shows its value: models write `(5.0 + 3.0) * 2.0` and expect 16.0.
        tree = ast.parse(request["code"], "<code>", "exec")
        last = tree.body.pop() if tree.body and isinstance(tree.body[-1], ast.Expr) else None
        exec(compile(tree, "<code>", "exec"), scope)
        if last is not None:
            value = eval(compile(ast.Expression(last.value), "<code>", "eval"), scope)
            if value is not None:
                print(repr(value))
    except MemoryError:
        report |= {"limit": "memory", "error": "MemoryError"}
    except OSError as exc:
        limit = {errno.EFBIG: "file_size", errno.EMFILE: "open_files", errno.EAGAIN: "processes"}.get(exc.errno or 0)
        report |= {"limit": limit, "error": f"{type(exc).__name__}: {exc}"}
    except SystemExit as exc:
        report |= {"exit": exc.code if isinstance(exc.code, int) else 1}
    except BaseException as exc:  # the program's own error is its result
        import traceback

        traceback.print_exception(exc.with_traceback(exc.__traceback__.tb_next if exc.__traceback__ else None))
        report |= {"error": f"{type(exc).__name__}: {exc}"}
    report["calls"] = calls[0]
    sys.stdout.flush()
    sys.stderr.flush()
    channel.write(json.dumps(report) + "\n")
    channel.flush()
    os._exit(0)


if __name__ == "__main__":  # inside the sandbox
    main()
