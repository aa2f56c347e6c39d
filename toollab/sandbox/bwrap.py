"""The bubblewrap command line: a process with its own view of the file system (the Python installation and the
system's libraries read-only, a fresh working directory writable, nothing else of the host), no network (its own
loopback only), its own process tree that dies with it, no capabilities and an empty environment."""

from __future__ import annotations

import functools
import os
import shutil
import subprocess
import sys
import sysconfig
from pathlib import Path

WORKDIR = "/work"
SYSTEM = ("/usr", "/lib", "/lib64", "/bin", "/sbin")


def _world_runnable(path: Path) -> bool:
    """Whether any user may run `path`: it and every folder above it are open to others (a sandbox runs as
    nobody when the harness runs as root, and nobody cannot enter /root, where pyenv puts Python)."""
    try:
        return all(p.stat().st_mode & 0o001 for p in (path, *path.parents)) and bool(path.stat().st_mode & 0o004)
    except OSError:
        return False


@functools.cache
def interpreter() -> str:
    """The Python that runs sandboxed programs: the harness's own where others may run it, else the system's
    of the same version (the runner needs the standard library only)."""
    own = Path(os.path.realpath(sys.executable))
    if os.geteuid() != 0 or _world_runnable(own):
        return str(own)
    version = f"python{sys.version_info.major}.{sys.version_info.minor}"
    for candidate in (f"/usr/bin/{version}", f"/usr/local/bin/{version}", "/usr/bin/python3"):
        if _world_runnable(Path(candidate)):
            return candidate
    return str(own)


def site_packages() -> list[str]:
    """The harness environment's package folders (for `site_packages=True`)."""
    return sorted({sysconfig.get_path("purelib"), sysconfig.get_path("platlib")})


def command(workdir: Path, python: str, with_packages: bool = False) -> list[str]:
    """bwrap's arguments up to the program to run (the same paths inside as outside, so `python` works)."""
    argv = ["bwrap", "--unshare-all", "--unshare-user", "--die-with-parent", "--new-session", "--cap-drop", "ALL"]
    argv += ["--uid", "65534", "--gid", "65534", "--clearenv", "--setenv", "PATH", "/usr/bin:/bin"]
    argv += ["--setenv", "HOME", WORKDIR, "--proc", "/proc", "--dev", "/dev", "--tmpfs", "/tmp"]
    for path in SYSTEM:
        if Path(path).exists():
            argv += ["--ro-bind", path, path]
    prefixes = {str(Path(python).resolve().parent.parent)}
    prefixes |= set(site_packages()) if with_packages else set()
    for path in sorted(prefixes):
        if not any(path.startswith(system + "/") or path == system for system in SYSTEM):
            argv += ["--ro-bind", path, path]
    argv += ["--bind", str(workdir), WORKDIR, "--chdir", WORKDIR]
    return argv


@functools.cache
def why_not() -> str | None:
    """None when bwrap runs here; else why not (not installed, or user namespaces refused)."""
    if shutil.which("bwrap") is None:
        return "bwrap is not installed (Debian: apt-get install bubblewrap)"
    import tempfile

    with tempfile.TemporaryDirectory() as tmp:
        as_root = os.geteuid() == 0
        if as_root:
            os.chown(tmp, 65534, 65534)
        python = interpreter()
        probe = [*command(Path(tmp), python), python, "-I", "-S", "-c", "print('ok')"]
        try:
            done = subprocess.run(
                probe, capture_output=True, text=True, timeout=30, cwd=tmp, env={},
                user=65534 if as_root else None, group=65534 if as_root else None,
                extra_groups=[] if as_root else None,
            )  # fmt: skip
        except (OSError, subprocess.TimeoutExpired) as exc:
            return f"bwrap failed to start: {exc}"
    return None if done.stdout.strip() == "ok" else f"bwrap refused: {done.stderr.strip()[:300]}"


def works() -> bool:
    return why_not() is None
