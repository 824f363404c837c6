"""A store memtui cannot use is not a damaged one: owned by another user, on a read-only file
system, behind a folder mode, or on a full disk, every command (doctor and its repair too)
says so in one coded line with what to do, offers no repair, and leaves every file as it was.

Made for real, as root: a user made with useradd, a tmpfs remounted read-only, a small tmpfs
filled up. Each test skips, saying why, where the platform cannot make its case.
"""

from __future__ import annotations

import os
import pwd
import shutil
import subprocess
import sys
import tempfile
from collections.abc import Iterator
from contextlib import contextmanager
from pathlib import Path

import corpus
import pytest

from memtui.config import Config
from tests.cli_run import AS_A_USER, env_for, memtui, one_line_error
from tests.lines import exchange, write

USER = "memtui-tester"


def as_root() -> None:
    if os.geteuid() != 0:
        pytest.skip("needs root: it makes users and mounts file systems")


@contextmanager
def tmpfs(where: Path, size: str) -> Iterator[Path]:
    where.mkdir(parents=True, exist_ok=True)
    made = subprocess.run(
        ["mount", "-t", "tmpfs", "-o", f"size={size},mode=0755", "tmpfs", str(where)],
        capture_output=True,
    )
    if made.returncode != 0:
        pytest.skip(f"cannot mount a tmpfs here: {made.stderr.decode().strip()}")
    try:
        yield where
    finally:
        subprocess.run(["umount", "-l", str(where)], check=False)


def remount(where: Path, mode: str) -> None:
    done = subprocess.run(["mount", "-o", f"remount,{mode}", str(where)], capture_output=True)
    if done.returncode != 0:
        pytest.skip(f"cannot remount {mode} here: {done.stderr.decode().strip()}")


def archive_with_a_note(cfg: Config) -> None:
    write(cfg.claude_dir / "-home-dev-shop" / "aaaa1111-one.jsonl", exchange(1, "aaaa1111-one"))
    assert memtui(cfg, "index").returncode == 0
    added = memtui(cfg, "note", "add", "--title", "Keep me", "--layer", "past", "-", stdin="kept")
    assert added.returncode == 0, added.stderr


def files_of(folder: Path) -> dict[str, bytes]:
    return {str(p.relative_to(folder)): p.read_bytes() for p in folder.rglob("*") if p.is_file()}


def refused(result: subprocess.CompletedProcess[str], *words: str) -> None:
    """One line, coded STORE_UNAVAILABLE, saying `words`, and nothing about a damaged store."""
    assert one_line_error(result), result.stdout + result.stderr
    line = result.stderr
    assert line.startswith("memtui: STORE_UNAVAILABLE: "), line
    assert all(word in line for word in words), line
    assert not any(w in result.stdout + line for w in ("damaged", "lost", "recovery")), line


@pytest.fixture
def other_user() -> pwd.struct_passwd:
    """A user other than root, made once with useradd."""
    as_root()
    if not shutil.which("useradd") or not shutil.which("setpriv"):
        pytest.skip("needs useradd and setpriv to run memtui as another user")
    try:
        return pwd.getpwnam(USER)
    except KeyError:
        subprocess.run(
            ["useradd", "--system", "--no-create-home", "--shell", "/usr/sbin/nologin", USER],
            check=True,
            capture_output=True,
        )
        return pwd.getpwnam(USER)


@pytest.fixture
def root_owned(cfg: Config) -> Iterator[Config]:
    """A data dir made by `sudo memtui ...`: root's, in a folder every user may pass through."""
    base = Path(tempfile.mkdtemp(prefix="memtui-owned-"))
    base.chmod(0o755)
    owned = Config(base / "data", base / "claude", cfg.log_dir)
    try:
        archive_with_a_note(owned)
        yield owned
    finally:
        shutil.rmtree(base)


def as_user(
    user: pwd.struct_passwd, cfg: Config, home: Path, *args: str
) -> subprocess.CompletedProcess[str]:
    return subprocess.run(
        [
            "setpriv",
            f"--reuid={user.pw_uid}",
            f"--regid={user.pw_gid}",
            "--clear-groups",
            sys.executable,
            "-m",
            "memtui",
            *args,
        ],
        env=env_for(cfg, HOME=str(home)),
        capture_output=True,
        text=True,
        timeout=180,
        cwd="/",
    )


def test_a_store_owned_by_another_user_is_unavailable_not_damaged(
    root_owned: Config, other_user: pwd.struct_passwd, tmp_path: Path
) -> None:
    home = tmp_path / "home"
    home.mkdir()
    os.chown(home, other_user.pw_uid, other_user.pw_gid)
    before = files_of(root_owned.data_dir)
    for args in (("doctor",), ("doctor", "--repair", "--yes"), ("stats",), ("notes",)):
        refused(
            as_user(other_user, root_owned, home, *args),
            "owned by root",
            f"sudo chown -R {USER} {root_owned.data_dir}",
        )
    assert files_of(root_owned.data_dir) == before
    assert "Keep me" in memtui(root_owned, "notes").stdout


def test_a_store_on_a_read_only_file_system_is_unavailable_not_damaged(
    cfg: Config, tmp_path: Path
) -> None:
    as_root()
    with tmpfs(tmp_path / "disk", "64m") as disk:
        on_disk = Config(disk / "data", cfg.claude_dir, cfg.log_dir)
        archive_with_a_note(on_disk)
        before = files_of(on_disk.data_dir)
        remount(disk, "ro")
        for args in (("doctor",), ("doctor", "--repair", "--yes"), ("stats",), ("notes",)):
            refused(memtui(on_disk, *args), "read-only", str(on_disk.data_dir))
        remount(disk, "rw")
        assert files_of(on_disk.data_dir) == before
        assert "Keep me" in memtui(on_disk, "notes").stdout


@pytest.mark.skipif(os.geteuid() == 0 and not AS_A_USER, reason="root ignores file modes")
def test_a_data_dir_the_user_cannot_write_is_unavailable_not_damaged(cfg: Config) -> None:
    archive_with_a_note(cfg)
    before = files_of(cfg.data_dir)
    cfg.data_dir.chmod(0o500)
    try:
        for args in (("doctor",), ("doctor", "--repair", "--yes")):
            refused(memtui(cfg, *args, as_user=True), "not writable", f"chmod u+rwx {cfg.data_dir}")
    finally:
        cfg.data_dir.chmod(0o700)
    assert files_of(cfg.data_dir) == before


def fill(disk: Path, leave: int) -> None:
    """Write until the disk has no room left, then give `leave` bytes back."""
    filler = disk / "filler"
    with open(filler, "wb", buffering=0) as out:
        try:
            while True:
                out.write(b"\0" * 65536)
        except OSError:
            pass
    os.truncate(filler, max(filler.stat().st_size - leave, 0))


def leftovers(folder: Path) -> list[str]:
    """Half-built indexes and snapshots: `text.new`, `text.new.damaged`, `.vectors-….tmp`."""
    return [p.name for p in folder.rglob("*") if p.name.endswith((".new", ".damaged", ".tmp"))]


@pytest.mark.parametrize("room", [0, 256 * 1024], ids=["no-room", "room-to-read"])
def test_a_full_disk_is_one_line_and_leaves_nothing_behind(
    cfg: Config, tmp_path: Path, room: int
) -> None:
    """With no room at all even reading fails; with a little, reindex fails part way."""
    as_root()
    corpus.generate(cfg.claude_dir, messages=400, seed=5)
    with tmpfs(tmp_path / "disk", "24m") as disk:
        full = Config(disk / "data", cfg.claude_dir, cfg.log_dir)
        assert memtui(full, "index").returncode == 0
        fill(disk, room)
        for args in (("reindex",), ("doctor",), ("doctor", "--repair")):
            result = memtui(full, *args)
            if result.returncode or args == ("reindex",):
                assert one_line_error(result), (args, result.stderr)
                assert result.stderr.startswith("memtui: STORE_UNAVAILABLE: disk is full")
            assert not leftovers(full.index_dir), (args, leftovers(full.index_dir))
        (disk / "filler").unlink()
        assert memtui(full, "doctor").returncode == 0
