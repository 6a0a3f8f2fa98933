"""Helpers shared by the event-log tests."""

from __future__ import annotations

import hashlib
import os
import signal
import subprocess
import sys
from pathlib import Path

HERE = Path(__file__).parent
CRASH_CHILD = HERE / "crash_child.py"
REPO = HERE.parent.parent


def digest(path: Path) -> str:
    return hashlib.sha256(path.read_bytes()).hexdigest()


def snapshot(directory: Path) -> dict[str, str]:
    """Name -> sha256 of every file in ``directory`` (to prove nothing was touched or added)."""
    return {p.name: digest(p) for p in sorted(directory.iterdir()) if p.is_file()}


def run_child_and_kill(args: list[str], kill_after: int, prefix: str = "confirmed") -> list[str]:
    """Start ``crash_child.py ARGS``, wait until it has printed ``kill_after`` lines starting
    with ``prefix``, SIGKILL it, and return every such line it printed (including those that
    were still in the pipe when it died)."""
    env = dict(os.environ)
    env["PYTHONPATH"] = os.pathsep.join([str(REPO), env.get("PYTHONPATH", "")])
    proc = subprocess.Popen([sys.executable, str(CRASH_CHILD), *args], stdout=subprocess.PIPE,
                            stderr=subprocess.PIPE, text=True, env=env)
    lines: list[str] = []
    try:
        assert proc.stdout is not None
        while len(lines) < kill_after:
            line = proc.stdout.readline()
            if not line:  # the child ended on its own: show why
                proc.wait(timeout=30)
                raise AssertionError(f"child exited early (rc={proc.returncode}): {proc.stderr.read()}")
            if line.startswith(prefix):
                lines.append(line.strip())
        if sys.platform != "win32":
            proc.send_signal(signal.SIGKILL)
        else:  # pragma: no cover
            proc.kill()
        proc.wait(timeout=30)
        rest = proc.stdout.read()
        lines.extend(s.strip() for s in rest.splitlines() if s.startswith(prefix))
    finally:
        if proc.poll() is None:
            proc.kill()
            proc.wait(timeout=30)
        for stream in (proc.stdout, proc.stderr):
            if stream is not None:
                stream.close()
    assert proc.returncode == -signal.SIGKILL or sys.platform == "win32", proc.returncode
    return lines
