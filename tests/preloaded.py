"""Servers forked from a process that imported the server once: ``tapisvert serve`` as the tests
start it, without each start importing everything again.

A server's start costs some 1.5 s of a core, four fifths of it imports (sqlalchemy, fastapi,
pydantic's models, alembic, our own modules), and the suite starts about 145. Each test
process keeps one preloading process, which imports what ``serve`` imports and then waits;
asked for a server, it forks, and the child runs the ``tapisvert`` command with the server's
arguments, as ``python -m tapisvert`` would (its ``__main__``, its arguments, its exit and the
process exit code; its output to the server's log), on what the parent imported: a start then
costs a fifth as much.

The preloading process reads one request a line on its standard input, JSON ``[arguments,
log, folder, environment]``, and answers on its standard output ``["started", pid]`` for each, then
``["exited", pid, code]`` when that process ends (a death by a signal as minus the signal, as
``subprocess`` says it). Run as a script, this module is that process; imported, it is the
tests' side (:func:`start`), which falls back to a process of its own (``subprocess.Popen``)
wherever the environment differs from the preloading process's in what is read before the
server runs (see :meth:`Preloader.may_fork`).
"""

from __future__ import annotations

import contextlib
import json
import os
import selectors
import signal
import subprocess
import sys
import threading
from pathlib import Path
from typing import Any, BinaryIO

from tapisvert.compiled import ENGINE_VARIABLE

PRELOADED = (
    "tapisvert.cli.main",
    "tapisvert.server.app",
    "tapisvert.server.collector",
    "tapisvert.server.draining",
    "tapisvert.server.links",
    "tapisvert.server.storage",
    "uvicorn",
    "uvicorn.protocols.http.httptools_impl",
    "uvicorn.protocols.websockets.websockets_sansio_impl",
    "uvicorn.lifespan.on",
    "alembic.command",
    "alembic.config",
    "alembic.runtime.migration",
)
"""What ``serve`` imports before it listens (a module missing here is imported by each server
as it starts: slower, not wrong)."""


# -- the tests' side ------------------------------------------------------------------------


class ForkedProcess:
    """A server forked by the preloading process: what the tests use of ``subprocess.Popen``."""

    def __init__(self, pid: int) -> None:
        self.pid = pid
        self.returncode: int | None = None
        self._ended = threading.Event()

    def ended(self, code: int) -> None:
        self.returncode = code
        self._ended.set()

    def poll(self) -> int | None:
        return self.returncode

    def wait(self, timeout: float | None = None) -> int:
        if not self._ended.wait(timeout):
            raise subprocess.TimeoutExpired(f"server {self.pid}", timeout or 0.0)
        assert self.returncode is not None
        return self.returncode

    def send_signal(self, number: int) -> None:
        """As ``Popen.send_signal``: nothing once the process has ended."""
        if self.returncode is None:
            with contextlib.suppress(ProcessLookupError):  # ended, its end not heard yet
                os.kill(self.pid, number)

    def kill(self) -> None:
        self.send_signal(signal.SIGKILL)

    def terminate(self) -> None:
        self.send_signal(signal.SIGTERM)


class Preloader:
    """This test process's preloading process, and the servers it forked."""

    def __init__(self) -> None:
        self.environment = dict(os.environ)
        """The environment it started with: a server wanting another starts on its own."""
        self.process = subprocess.Popen(
            [sys.executable, __file__],
            stdin=subprocess.PIPE,
            stdout=subprocess.PIPE,
            env=self.environment,
        )
        self._asking = threading.Lock()
        self._started: list[ForkedProcess] = []
        self._answered = threading.Condition()
        self._forked: dict[int, ForkedProcess] = {}
        threading.Thread(target=self._listen, name="preloaded servers", daemon=True).start()

    def may_fork(self, environment: dict[str, str]) -> bool:
        """Whether a server with ``environment`` may be forked: where it differs from the
        preloading process's only in variables read as the server runs (``TAPISVERT_…``),
        not as the interpreter starts or the engine is chosen (``PYTHONPATH``,
        ``TAPISVERT_ENGINE``), nor as anything is imported; or in the name of the test
        running, which pytest keeps there."""
        differing = {
            name
            for name in environment.keys() | self.environment.keys()
            if environment.get(name) != self.environment.get(name)
        }
        return all(
            name.startswith("TAPISVERT_") or name == "PYTEST_CURRENT_TEST"  # the test running
            for name in differing - {ENGINE_VARIABLE}
        )

    def fork(self, arguments: list[str], log: Path, environment: dict[str, str]) -> ForkedProcess:
        assert self.process.stdin is not None
        with self._asking, self._answered:
            request = json.dumps([arguments, str(log), os.getcwd(), environment])
            self.process.stdin.write(request.encode() + b"\n")
            self.process.stdin.flush()
            if not self._answered.wait_for(lambda: self._started or not self.alive(), 60):
                raise RuntimeError("the preloading process did not fork a server in 60 s")
            if not self._started:
                raise RuntimeError(f"the preloading process ended ({self.process.returncode})")
            return self._started.pop()

    def alive(self) -> bool:
        return self.process.poll() is None

    def _listen(self) -> None:
        assert self.process.stdout is not None
        for line in self.process.stdout:
            kind, pid, *code = json.loads(line)
            with self._answered:
                if kind == "started":
                    forked = self._forked[pid] = ForkedProcess(pid)
                    self._started.append(forked)
                    self._answered.notify_all()
                else:
                    self._forked.pop(pid).ended(code[0])
        with self._answered:
            self._answered.notify_all()


_preloader: Preloader | None = None
_making = threading.Lock()


def start(
    arguments: list[str], log: Path, environment: dict[str, str] | None
) -> ForkedProcess | subprocess.Popen[bytes]:
    """``tapisvert ARGUMENTS`` writing to ``log``, with ``environment`` (default: this
    process's): forked where it may be (:meth:`Preloader.may_fork`), else a process of its own."""
    global _preloader
    with _making:
        if _preloader is None or not _preloader.alive():
            _preloader = Preloader()
        preloader = _preloader
    wanted = dict(os.environ if environment is None else environment)
    if preloader.may_fork(wanted):
        return preloader.fork(arguments, log, wanted)
    with log.open("ab") as output:
        command = [sys.executable, "-m", "tapisvert", *arguments]
        return subprocess.Popen(command, stdout=output, stderr=output, env=environment)


# -- the preloading process -----------------------------------------------------------------


def _answer(out: BinaryIO, *words: Any) -> None:
    out.write(json.dumps(words).encode() + b"\n")
    out.flush()


def _serve_requests() -> tuple[list[str], str, str, dict[str, str]]:
    """Fork a server for each request, and tell of each one's end, until the input ends; in
    a forked child, return its request."""
    import importlib

    for module in PRELOADED:
        importlib.import_module(module)
    requests = sys.stdin.buffer
    answers = sys.stdout.buffer
    wake_read, wake_write = os.pipe()
    os.set_blocking(wake_write, False)
    signal.set_wakeup_fd(wake_write)
    signal.signal(signal.SIGCHLD, lambda *_: None)
    selector = selectors.DefaultSelector()
    selector.register(requests, selectors.EVENT_READ)
    selector.register(wake_read, selectors.EVENT_READ)
    while True:
        for key, _ in selector.select():
            if key.fileobj is wake_read:
                os.read(wake_read, 512)
                while True:
                    try:
                        pid, status = os.waitpid(-1, os.WNOHANG)
                    except ChildProcessError:
                        break
                    if pid == 0:
                        break
                    _answer(answers, "exited", pid, os.waitstatus_to_exitcode(status))
                continue
            line = requests.readline()
            if not line:
                sys.exit(0)
            request = json.loads(line)
            sys.stdout.flush()
            sys.stderr.flush()
            pid = os.fork()
            if pid == 0:
                selector.close()
                signal.set_wakeup_fd(-1)
                signal.signal(signal.SIGCHLD, signal.SIG_DFL)
                os.close(wake_read)
                os.close(wake_write)
                arguments, log, folder, environment = request
                return arguments, log, folder, environment
            _answer(answers, "started", pid)


def _become(arguments: list[str], log: str, folder: str, environment: dict[str, str]) -> None:
    """This forked child as ``python -m tapisvert ARGUMENTS`` started in ``folder`` with
    ``environment``, its output to ``log``, its input none."""
    import importlib.util

    os.environ.clear()
    os.environ.update(environment)

    nothing = os.open(os.devnull, os.O_RDONLY)
    output = os.open(log, os.O_WRONLY | os.O_CREAT | os.O_APPEND, 0o644)
    os.dup2(nothing, 0)
    os.dup2(output, 1)
    os.dup2(output, 2)
    os.close(nothing)
    os.close(output)
    os.chdir(folder)
    command = importlib.util.find_spec("tapisvert.__main__")
    assert command is not None and command.origin is not None
    # as ``-m`` leaves it: the processes the server spawns then import none of this module
    sys.modules["__main__"].__spec__ = command
    sys.argv = [command.origin, *arguments]
    sys.path[0] = folder


if __name__ == "__main__":
    _become(*_serve_requests())
    from tapisvert.cli.entry import main

    main()
