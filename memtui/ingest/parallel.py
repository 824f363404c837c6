"""Reading and parsing in a second process while this one writes to the store.

A cold ingest is half parsing and half SQLite, and the GIL lets one process do only one of
them at a time; on two cores a reader process takes the parsing off the writer's path. The
reader is a plain `python -m` child talking pickles over a pipe (multiprocessing's spawn would
re-run the caller's main module). Batches come back in file order, so the writer sees exactly
what reading in-process gives it.
"""

from __future__ import annotations

import logging
import os
import pickle
import queue
import subprocess
import sys
import threading
import traceback
from collections.abc import Generator
from pathlib import Path
from typing import BinaryIO

import memtui
from memtui.bulk import paused_gc
from memtui.config import LogFile, setup_logging
from memtui.errors import StoreUnavailable
from memtui.ingest.reader import Unreadable, Work, read_all
from memtui.store.archive import FileBatch
from memtui.store.mask import Masker

# (index of the file in the work list, one of its batches)
log = logging.getLogger(__name__)
Chunk = list[tuple[int, FileBatch | Unreadable]]

CHUNK_RECORDS = 2_000  # records per pickle sent to the writer
QUEUED = 16  # pickles the reader may hold ahead of the writer
_DONE = "done"
_FAILED = "failed"


def read_elsewhere(
    agent: str, root: Path, work: Work, masker: Masker | None = None
) -> Generator[tuple[int, FileBatch | Unreadable], None, None]:
    """What `reader.read_all(root, work, masker, <agent's read_file>)` yields, read, parsed
    and masked by a child process. The agent goes by name: the child finds its reader."""
    # The child must import this very memtui, whether installed or run from a checkout.
    package_root = str(Path(memtui.__file__).resolve().parents[1])
    path = os.pathsep.join([package_root, os.environ.get("PYTHONPATH", "")])
    child = subprocess.Popen(
        [sys.executable, "-m", __name__],
        stdin=subprocess.PIPE,
        stdout=subprocess.PIPE,
        stderr=subprocess.DEVNULL,
        env={**os.environ, "PYTHONPATH": path},
    )
    assert child.stdin is not None and child.stdout is not None
    try:
        pickle.dump((agent, root, work, _log_dir(), masker), child.stdin, pickle.HIGHEST_PROTOCOL)
        child.stdin.close()
        while True:
            try:
                message = pickle.load(child.stdout)
            except EOFError:
                raise StoreUnavailable(
                    f"the transcript reader stopped (exit code {child.wait()})"
                ) from None
            if message == _DONE:
                break
            if isinstance(message, tuple) and message[0] == _FAILED:
                log.error("the transcript reader failed:\n%s", message[1])
                raise StoreUnavailable("the transcript reader failed (see the log)")
            yield from message
    finally:
        if child.poll() is None:
            child.kill()
        child.wait()
        child.stdout.close()


def _child(source: BinaryIO, channel: BinaryIO) -> None:
    """The reader's side: parse every file in the work list, pickle batches down the pipe."""
    agent, root, work, log_dir, masker = pickle.load(source)
    if log_dir is not None:
        setup_logging(log_dir)
    # Here, not at the top: the readers import the pipeline, which imports this module.
    from memtui.ingest.sources.registry import SOURCES

    read = SOURCES[agent].read_file
    # Pickling holds the GIL, writing to the pipe does not: a thread writes while we parse.
    outbox: queue.Queue[bytes | None] = queue.Queue(QUEUED)
    sender = threading.Thread(target=_send, args=(outbox, channel))
    sender.start()
    try:
        with paused_gc():
            chunk: Chunk = []
            size = 0
            for number, batch in read_all(root, work, masker, read):
                chunk.append((number, batch))
                # An entry that could not be read goes to the writer too, which counts it.
                size += (len(batch.records) if isinstance(batch, FileBatch) else 0) + 1
                if size >= CHUNK_RECORDS:
                    outbox.put(pickle.dumps(chunk, pickle.HIGHEST_PROTOCOL))
                    chunk, size = [], 0
            if chunk:
                outbox.put(pickle.dumps(chunk, pickle.HIGHEST_PROTOCOL))
        outbox.put(pickle.dumps(_DONE))
    except BaseException:
        outbox.put(pickle.dumps((_FAILED, traceback.format_exc())))
    finally:
        outbox.put(None)
        sender.join()


def _send(outbox: queue.Queue[bytes | None], channel: BinaryIO) -> None:
    try:
        while (data := outbox.get()) is not None:
            channel.write(data)
        channel.flush()
    except OSError:
        os._exit(1)  # the writer is gone (killed, or gave up): nobody wants the rest


def _log_dir() -> Path | None:
    """Where this process logs, so that the reader's warnings land in the same file."""
    for handler in logging.getLogger().handlers:
        if isinstance(handler, LogFile):
            return handler.log_dir
    return None


if __name__ == "__main__":
    channel = sys.stdout.buffer
    sys.stdout = sys.stderr  # the pipe carries pickles only
    _child(sys.stdin.buffer, channel)
