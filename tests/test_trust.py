"""Trust: secrets masked before anything is stored, and forget leaves no byte behind.

Secrets are built from parts at run time, so this file holds none.
"""

from __future__ import annotations

import base64
import dataclasses
import hashlib
import json
import os
import random
import sqlite3
import string
import subprocess
import sys
import time
from pathlib import Path

import pytest
import tantivy

from memtui.config import Config, unnamed
from memtui.engine import sessions
from memtui.engine.doctor import check_store, salvage
from memtui.engine.memory import Memory
from memtui.errors import NotConfirmed
from memtui.ingest.reader import read_file
from memtui.ingest.titles import prompt_title
from memtui.store import db
from memtui.store import signals as signals_store
from memtui.store.archive import Archive
from memtui.store.fts import FtsDoc, FullText
from memtui.store.markers import OPEN, cut
from memtui.store.mask import KEY_FILE, Masker
from tests.agents import support
from tests.cli_run import env_for, memtui, one_line_error
from tests.lines import assistant, text, user, write
from tests.work_data import Session, before_work

_R = random.Random(18)


def _rnd(n: int, alphabet: str = string.ascii_letters + string.digits) -> str:
    return "".join(_R.choice(alphabet) for _ in range(n))


UP = string.ascii_uppercase + string.digits
# kind -> (a planted secret value, the context it sits in)
PLANTED: dict[str, tuple[str, str]] = {
    "aws": ("AKIA" + _rnd(16, UP), "aws configure set aws_access_key_id {}"),
    "github": ("ghp_" + _rnd(36), "git remote set-url origin https://x:{}@github.com/a/b"),
    "github-pat": ("github_pat_" + _rnd(22) + "_" + _rnd(59), "GH={} gh pr list"),
    "gitlab": ("glpat-" + _rnd(20), "use the token {} for the registry"),
    "slack": ("xoxb-" + _rnd(12, string.digits) + "-" + _rnd(24), "slack bot token is {}"),
    "stripe": ("sk_" + "live_" + _rnd(24), "charge with {} please"),
    "openai": ("sk-proj-" + _rnd(48), "client = OpenAI(api_key={!r})"),
    "anthropic": ("sk-ant-api03-" + _rnd(90), "my anthropic key {} stopped working"),
    "google": ("AIza" + _rnd(35), "maps key {} in the config"),
    "private-key": (
        "-----BEGIN OPENSSH PRIVATE KEY-----\n"
        + _rnd(64)
        + "\n"
        + _rnd(64)
        + "\n-----END OPENSSH PRIVATE KEY-----",
        "cat ~/.ssh/id_ed25519\n{}\n",
    ),
    "jwt": (
        "eyJhbGciOiJIUzI1NiJ9.eyJzdWIiOiIx" + _rnd(20) + "." + _rnd(43),
        "the session cookie was {}",
    ),
    "url-password": ("Pw" + _rnd(14), "DATABASE_URL=postgres://app:{}@db.internal:5432/shop"),
    "env": ("Ev" + _rnd(20), "STRIPE_WEBHOOK_SECRET={}\nDEBUG=1"),
    "export": ("Ex" + _rnd(20), "export API_KEY={}"),
    "yaml": ("Ym" + _rnd(18), "database:\n  password: {}\n  host: db"),
    "json": ("Js" + _rnd(18), '{{"client_secret": "{}", "id": 3}}'),
    "authorization": ("Au" + _rnd(30), 'curl -H "Authorization: Bearer {}" https://api'),
    "high-entropy": (_rnd(40), "the value was {} yesterday"),
    # Issue 25: stored unmasked until then.
    "aws-secret-prose": (_rnd(17) + "/" + _rnd(22), "my aws secret is {} (rotate it)"),
    "aws-secret-configure": (
        _rnd(25) + "+" + _rnd(14),
        "aws configure set aws_secret_access_key {} --profile prod",
    ),
    "aws-secret-flag": (_rnd(9) + "/" + _rnd(30), "s3cmd --aws-secret-key {} ls s3://b"),
    "netrc": (
        "Nr" + _rnd(14),
        "cat ~/.netrc\nmachine api.heroku.com\n  login dev@x.io\n  password {}\n",
    ),
    "docker-auth": (
        base64.b64encode(("dev:" + _rnd(20)).encode()).decode(),
        '{{"auths": {{"ghcr.io": {{"auth": "{}"}}}}}}',
    ),
    "azure": (
        base64.b64encode(_rnd(66).encode()).decode(),
        "DefaultEndpointsProtocol=https;AccountName=shop;AccountKey={};EndpointSuffix=core.windows.net",
    ),
    "twilio-sid": ("AC" + _rnd(32, "0123456789abcdef"), "the twilio account is {}"),
    "twilio-token": (_rnd(32, "0123456789abcdef"), "twilio auth token: {} (test creds)"),
    "hex-api-key": (_rnd(32, "0123456789abcdef"), 'WEATHER_API = "{}"'),
    "hex-key": (_rnd(32, "0123456789abcdef"), "maps_key: {}"),
    "putty": (
        _rnd(64) + "\n" + _rnd(24) + "=",
        "PuTTY-User-Key-File-3: ssh-ed25519\nEncryption: none\nPublic-Lines: 1\nAAAAC3Nz\n"
        "Private-Lines: 2\n{}\nPrivate-MAC: 0a1b",
    ),
    "base64-github": (
        base64.b64encode(("ghp_" + _rnd(36)).encode()).decode(),
        "echo {} | base64 -d",
    ),
    "split-anthropic": ("sk-ant-api03-" + _rnd(40) + "\n" + _rnd(20), "key:\n{}\nend"),
    "split-github": ("ghp_" + _rnd(16) + "\n" + _rnd(20), "token was\n{}\nthen"),
    "password-is": ("Pi" + _rnd(12), "the password is {} for the staging box"),
    "curl-user": ("Cu" + _rnd(14), "curl -u admin:{} https://api.internal/v1"),
    "docker-login": ("Dl" + _rnd(14), "docker login -u dev -p {} registry.example.com"),
    "sshpass": ("Ss" + _rnd(14), "sshpass -p '{}' ssh deploy@web1"),
    "redis-cli": ("Rc" + _rnd(14), "redis-cli -h cache -a {} ping"),
    "openssl": ("Os" + _rnd(14), "openssl enc -aes-256-cbc -k {} -in a.txt -out a.enc"),
    "x-api-key": ("Xa" + _rnd(24), 'curl -H "X-API-Key: {}" https://api.example.com'),
    "private-token": ("Pt" + _rnd(20), "curl --header 'PRIVATE-TOKEN: {}' https://gitlab/api"),
}
# The issue-25 kinds, each with the kind of the marker it becomes.
MARKED: dict[str, str] = {
    "aws-secret-prose": "aws-secret-key",
    "aws-secret-configure": "aws-secret-key",
    "aws-secret-flag": "aws-secret-key",
    "netrc": "password",
    "docker-auth": "docker-auth",
    "azure": "azure-key",
    "twilio-sid": "twilio-sid",
    "twilio-token": "twilio-token",
    "hex-api-key": "api-key",
    "hex-key": "api-key",
    "putty": "private-key",
    "base64-github": "github-token",
    "split-anthropic": "anthropic-key",
    "split-github": "github-token",
    "password-is": "password",
    "curl-user": "password",
    "docker-login": "password",
    "sshpass": "password",
    "redis-cli": "password",
    "openssl": "password",
    "x-api-key": "api-key",
    "private-token": "token",
}
# 192 characters of base64: wrapped at 76, as a certificate is, its last line is 40 long.
CERT = base64.b64encode(
    hashlib.sha512(b"cert0").digest() * 2 + hashlib.sha256(b"c").digest()[:16]
).decode()
NEAR_MISSES = [
    "3f9a1b2c4d5e6f708192a3b4c5d6e7f809102a3b",  # a git SHA
    "123e4567-e89b-12d3-a456-426614174000",  # a UUID
    "SGVsbG8sIHdvcmxkISBUaGlzIGlzIGEgdGVzdCBmaXh0dXJlLg==",  # a base64 fixture
    "password_hint",
    "max_tokens",
    # Issue 25: a model's name, hashes in prose, sha256sum's output, a lockfile's integrity,
    # an image in a data: URI.
    "sk-learn_transformer_pipeline_v2",
    hashlib.md5(b"app-1.4.2.tgz").hexdigest(),
    hashlib.sha1(b"app-1.4.2.tgz").hexdigest(),
    hashlib.sha256(b"app-1.4.2.tgz").hexdigest(),
    "sha512-" + base64.b64encode(hashlib.sha512(b"left-pad").digest()).decode(),
    "sha1-" + base64.b64encode(hashlib.sha1(b"left-pad").digest()).decode(),
    "data:image/png;base64,"
    + base64.b64encode(b"\x89PNG\r\n\x1a\n" + hashlib.sha512(b"pixel").digest() * 3).decode(),
    CERT[152:],  # a certificate's last line: 40 characters of base64, a `+` among them
]
NEAR_TEXT = (
    "commit 3f9a1b2c4d5e6f708192a3b4c5d6e7f809102a3b fixed it; request "
    "123e4567-e89b-12d3-a456-426614174000; fixture "
    '"SGVsbG8sIHdvcmxkISBUaGlzIGlzIGEgdGVzdCBmaXh0dXJlLg=="; the password_hint field; '
    "max_tokens: 4096\n"
    f"train {NEAR_MISSES[5]} on the logs; the md5 of the tarball is {NEAR_MISSES[6]} and its "
    f"sha1 {NEAR_MISSES[7]}\n$ sha256sum app-1.4.2.tgz\n{NEAR_MISSES[8]}  app-1.4.2.tgz\n"
    f'"integrity": "{NEAR_MISSES[9]}",\n"integrity": "{NEAR_MISSES[10]}",\n'
    f'<img src="{NEAR_MISSES[11]}">\n-----BEGIN CERTIFICATE-----\n'
    + "\n".join(CERT[i : i + 76] for i in range(0, len(CERT), 76))
    + "\n-----END CERTIFICATE-----"
)
SESSION = "5ec7e75a-0000-4000-8000-000000000001"
PROJECT_DIR = "-home-dev-shop-api"


def _planted(kind: str) -> str:
    value, context = PLANTED[kind]
    return context.format(value)


def _tool_use(command: str) -> dict:
    return {"type": "tool_use", "id": "toolu_1", "name": "Bash", "input": {"command": command}}


def _tool_result(uuid: str, output: str, session: str) -> bytes:
    record = {
        "type": "user",
        "uuid": uuid,
        "parentUuid": None,
        "sessionId": session,
        "cwd": "/home/dev/shop-api",
        "timestamp": "2026-11-01T10:00:07.000Z",
        "isSidechain": False,
        "message": {
            "role": "user",
            "content": [{"type": "tool_result", "tool_use_id": "toolu_1", "content": output}],
        },
    }
    return json.dumps(record).encode() + b"\n"


def write_secret_corpus(claude_dir: Path) -> None:
    """Every planted secret in each place a text is stored: prompt, tool argument, tool
    result, thinking, answer, and a subagent file; the near misses in a prompt."""
    main = claude_dir / PROJECT_DIR / f"{SESSION}.jsonl"
    agent = claude_dir / PROJECT_DIR / SESSION / "subagents" / "agent-a1.jsonl"
    for n, kind in enumerate(PLANTED):
        body = _planted(kind)
        where = n % 5
        if where == 0:
            write(main, user(f"u{n}", f"please look: {body}", SESSION))
        elif where == 1:
            write(main, assistant(f"a{n}", f"msg_{n}", _tool_use(body), SESSION))
        elif where == 2:
            write(main, _tool_result(f"r{n}", f"output:\n{body}\n", SESSION))
        elif where == 3:
            block = {"type": "thinking", "thinking": f"I see {body} here"}
            write(main, assistant(f"t{n}", f"msg_t{n}", block, SESSION))
        else:
            write(agent, user(f"g{n}", f"subagent read {body}", SESSION))
    write(main, user("near", NEAR_TEXT, SESSION))
    write(main, assistant("ans", "msg_ans", text("checked the webhook signing"), SESSION))


def secret_values() -> list[str]:
    values = []
    for value, _ in PLANTED.values():
        values += [line for line in value.splitlines() if "-----" not in line] or [value]
    return values


def data_bytes(data_dir: Path) -> bytes:
    out = b""
    for path in data_dir.rglob("*"):
        if path.is_file() and path.name != KEY_FILE:
            out += path.read_bytes()
    return out


def index_terms(index_dir: Path, prefix: str) -> list[str]:
    """Terms starting with `prefix` in any Tantivy index under `index_dir`, deleted documents'
    too (their terms stay until a merge rewrites the segment; the term dictionary is
    compressed, so grep does not see them)."""
    found = []
    for meta in index_dir.rglob("meta.json"):
        searcher = tantivy.Index.open(str(meta.parent)).searcher()
        for field in ("text", "tool_text"):
            found += [t for t, _ in searcher.terms_with_prefix(field, prefix)]
    return found


def _cfg(cfg: Config, **changes: object) -> Config:
    return dataclasses.replace(cfg, **changes)


# -- masking ------------------------------------------------------------------------------------


def test_planted_secrets_never_reach_disk_or_answers(cfg: Config) -> None:
    write_secret_corpus(cfg.claude_dir)
    with Memory(cfg) as memory:
        memory.upkeep.ingest()
        session_md = memory.history.session_markdown(SESSION)
        _, views = memory.history.session_messages(SESSION)
        shown = session_md + json.dumps([dataclasses.asdict(v) for v in views])
        for value in secret_values():
            assert value not in shown
            for mode in ("fts", "vector", "hybrid"):
                hits = memory.history.search(value, mode, limit=50).results
                assert all(value not in h.snippet for h in hits), (mode, value)
        assert all(n in shown for n in NEAR_MISSES)
        counts = memory.upkeep.masked_counts()
        assert sum(counts.values()) >= len(PLANTED)
        # A marker is searchable: the same secret gives the same marker.
        marker = memory.masker.marker("github-token", PLANTED["github"][0])
        assert marker in shown
        hits = memory.history.search(marker.split(":")[-1].rstrip("\u203a"), "fts").results
        assert hits
    raw = data_bytes(cfg.data_dir)
    for value in secret_values():
        assert value.encode() not in raw
    assert (cfg.data_dir / KEY_FILE).stat().st_mode & 0o777 == 0o600
    show = memtui(cfg, "show", SESSION, "--json")
    assert show.returncode == 0
    assert not any(v in show.stdout for v in secret_values())


def _marked_value(kind: str) -> str:
    """What an issue-25 kind's marker is the keyed hash of: a token split across lines joined
    again, a base64-encoded token decoded (so it gives the token's own marker)."""
    value = PLANTED[kind][0]
    if kind.startswith("split-"):
        return value.replace("\n", "")
    if kind == "base64-github":
        return base64.b64decode(value).decode()
    return value


def test_issue_25_kinds_are_found_by_their_marker_not_their_value(cfg: Config) -> None:
    """Issue 25: each kind went into the store as written and `search --mode fts VALUE` found
    it. Now the value finds nothing and its marker finds the message; the hashes, UUIDs and
    images beside them are still found."""
    main = cfg.claude_dir / PROJECT_DIR / f"{SESSION}.jsonl"
    for n, kind in enumerate(MARKED):  # prompts and tool output: the texts full text holds
        write(main, user(f"k{n}", f"please look: {_planted(kind)}", SESSION))
        write(main, _tool_result(f"o{n}", f"output:\n{_planted(kind)}\n", SESSION))
    write(main, user("near", NEAR_TEXT, SESSION))
    with Memory(cfg) as memory:
        memory.upkeep.ingest()
        for kind, marker_kind in MARKED.items():
            for value in PLANTED[kind][0].splitlines():
                assert not memory.history.search(value, "fts", limit=50).results, (kind, value)
            marker = memory.masker.marker(marker_kind, _marked_value(kind))
            digest = marker.split(":")[-1].rstrip("\u203a")
            hits = memory.history.search(digest, "fts", limit=50).results
            assert hits, (kind, marker)
        for near in NEAR_MISSES:
            assert memory.history.search(near, "fts").results, near
    for kind in ("aws-secret-prose", "curl-user"):
        found = memtui(cfg, "search", "--mode", "fts", "--json", PLANTED[kind][0])
        assert found.returncode == 0, found.stderr
        assert json.loads(found.stdout)["results"] == [], kind


def test_every_other_stored_text_is_masked_too(cfg: Config) -> None:
    """The texts masking once missed: a transcript's gitBranch, an MCP tool's name, a URL
    with an empty user name, passwords on a command line, a note's tags and folder, a minted
    inference's title and summary. None reaches the disk, each stored with its marker."""
    token = "ghp_" + _rnd(36)
    secret = {
        "branch": "ghp_" + _rnd(36),
        "tool": "ghp_" + _rnd(36),
        "redis": "Rd" + _rnd(16),
        "mysql": "My" + _rnd(16),
        "space": "Sp" + _rnd(16),
        "equals": "Eq" + _rnd(16),
        "tag": "ghp_" + _rnd(36),
        "folder": "glpat-" + _rnd(20),
        "title": "sk-ant-api03-" + _rnd(40),
        "summary": "AKIA" + _rnd(16, UP),
    }
    commands = (
        f"redis-cli -u redis://:{secret['redis']}@cache:6379 ping",
        f"mysql -u root -p{secret['mysql']} shop",
        f"pg_dump --password {secret['space']} shop",
        f"psql --password={secret['equals']} shop",
    )
    main = cfg.claude_dir / PROJECT_DIR / f"{SESSION}.jsonl"
    line = json.loads(user("b1", "deploy it", SESSION))
    line["gitBranch"] = f"feature/{secret['branch']}"
    write(main, json.dumps(line).encode() + b"\n")
    call = {"type": "tool_use", "id": "toolu_9", "name": f"mcp__{secret['tool']}__query"}
    write(main, assistant("m1", "msg_m1", call | {"input": {"query": "x"}}, SESSION))
    for n, command in enumerate(commands):
        write(main, assistant(f"c{n}", f"msg_c{n}", _tool_use(command), SESSION))
    with Memory(cfg) as memory:
        memory.upkeep.ingest()
        note = memory.notes.save(
            "Deploy notes",
            f"token {token} rotated",
            "state",
            by="person",
            tags=["deploy", secret["tag"]],
            folder=f"ops/{secret['folder']}",
        ).note
        assert memory.masker.marker("github-token", secret["tag"]) in note.tags
        assert note.folder == "ops/" + memory.masker.marker("gitlab-token", secret["folder"])
        assert memory.notes.list(tag=secret["tag"]) == [note]  # the filter is masked too
        minted = memory.inferences.mint(
            f"Key {secret['title']} leaked",
            f"seen with {secret['summary']}",
            0.5,
            confirmed=True,
            evidence_note_ids=[note.id],
        )
        info, views = memory.history.session_messages(SESSION)
        shown = json.dumps(
            [dataclasses.asdict(info), [dataclasses.asdict(v) for v in views], minted.title]
        )
        assert memory.masker.marker("github-token", secret["branch"]) in str(info.git_branch)
        for value in secret.values():
            assert value not in shown + minted.summary
    raw = data_bytes(cfg.data_dir)
    for name, value in secret.items():
        assert value.encode() not in raw, name


def test_command_line_passwords_and_their_near_misses(tmp_path: Path) -> None:
    masker = Masker.load(tmp_path / "d", tmp_path / "c")
    pw = "Pw" + _rnd(14)
    for line in (
        f"mysql -u root -p{pw} shop",
        f"mariadb-dump -h db -p'{pw}' shop",
        f"pg_dump --password {pw} shop",
        f"psql --password={pw} shop",
        f'tool --passwd "{pw}"',
        f"redis-cli -u redis://:{pw}@cache:6379",
        # issue 25
        f"curl -sS --user 'admin:{pw}' https://api",
        f"curl -uadmin:{pw} -X POST https://api",
        f"docker login --username dev -p '{pw}' ghcr.io",
        f"podman login -p {pw} quay.io",
        f"sshpass -p{pw} ssh deploy@web1",
        f'sshpass -p "{pw}" scp a b:',
        f"redis-cli --pass {pw} -h cache ping",
        f"openssl enc -d -aes-256-cbc -pass pass:{pw} -in a.enc",
        f"openssl rsa -in k.pem -passin 'pass:{pw}'",
        f'openssl enc -aes-256-cbc -k "{pw}" -in a',
        f"The password is `{pw}`.",
        f"passphrase was {pw}",
        f"machine ftp.example.org login anon password {pw}",
    ):
        assert pw not in masker.mask(line), line
        assert masker.marker("password" if "redis://" not in line else "url-password", pw) in (
            masker.mask(line)
        ), line
    for line in (
        "mysql -u root -p shop",  # -p alone: the client asks
        "use the --password flag to be asked",
        'pg_dump --password "$DB_PASSWORD" shop',
        "psql --password --host db",
        "mysql -u root -p$MYSQL_PWD shop",
        # issue 25
        "curl -u admin https://api | sort -u",
        'curl -u "$API_USER:$API_PASSWORD" https://api',
        "curl -u admin:$PASS https://api",
        "curl --user-agent 'Mozilla/5.0 (X11: Linux)' https://api",
        "docker login -u dev --password-stdin ghcr.io",
        'docker login -p "$(cat ~/.pw)" ghcr.io',
        "sshpass -e ssh deploy@web1",
        "sshpass -f ~/.pw ssh deploy@web1",
        "redis-cli -a $REDIS_PASSWORD ping",
        "openssl enc -pass env:ENC_PASS -in a",
        "openssl enc -kfile key.txt -in a",
        "the password is wrong, try again",
        "The password is required.",
        "the password is stored in Vault",
        "machine learning login page password reset",
        "X-API-Key: <your-key>",
        "    apiKey: NotRequired[str]",
        'curl -H "PRIVATE-TOKEN: $GITLAB_TOKEN" https://gitlab/api',
    ):
        assert masker.mask(line) == line, line


def test_a_token_cut_across_lines_is_joined_only_with_its_own_end() -> None:
    masker = Masker(key=b"k" * 32)
    token = "ghp_" + _rnd(36)
    kept = masker.mask(f"token:\n{token}\nDone\nREADME\n")
    assert kept == f"token:\n{masker.marker('github-token', token)}\nDone\nREADME\n"
    for prose in ("a risk-\nfree plan", "use sk-\nlearn", "glpat-\nrotation is due"):
        assert masker.mask(prose) == prose


def test_a_cut_never_splits_a_marker() -> None:
    marker = Masker(key=b"k" * 32).marker("github-token", "ghp_" + "x" * 36)
    text = "a" * 190 + marker + " more"
    assert cut(text, 200) == "a" * 190  # the marker would not fit: left out whole
    assert cut(text, 190 + len(marker)) == "a" * 190 + marker
    assert prompt_title(text) == "a" * 190  # the test failed before this fix
    lone = "a" * 195 + OPEN + " is a quotation mark, not a marker"
    assert cut(lone, 200) == lone[:200]


def test_an_archive_titled_before_masking_came_first_is_titled_again(tmp_path: Path) -> None:
    path = tmp_path / "-w" / "s-1.jsonl"
    write(path, user("u-1", support.CUT_PROMPT))
    archive = Archive(tmp_path / "store.db")
    archive.apply(list(read_file(tmp_path, path, None, Masker(key=b"k" * 32))))
    conn = archive.conn
    # What a reader stored before: the prompt cut, then masked (no token left to know).
    conn.execute("UPDATE sessions SET first_prompt = ?", (support.CUT_PROMPT[:200],))
    conn.execute("INSERT OR REPLACE INTO meta VALUES ('titles', '2')")
    assert sessions.retitle(conn) == 1  # the test failed before this fix
    (title,) = conn.execute("SELECT first_prompt FROM sessions").fetchone()
    assert title == "w" * 180 and support.kept_whole(title)
    long = sessions.short_title("w " * 90 + "x" + Masker(key=b"k" * 32).marker("jwt", "v"))
    assert support.kept_whole(long.removesuffix("…"))
    archive.close()


def test_precision_and_recall_on_the_planted_set() -> None:
    masker = Masker(key=b"k" * 32)
    caught = sum(all(v not in masker.mask(_planted(k)) for v in [PLANTED[k][0]]) for k in PLANTED)
    kept = masker.mask(NEAR_TEXT)
    false_positives = sum(n not in kept for n in NEAR_MISSES)
    recall = caught / len(PLANTED)
    precision = caught / (caught + false_positives)
    print(f"recall {recall:.2f} ({caught}/{len(PLANTED)}), precision {precision:.2f}")
    assert recall == 1.0 and precision == 1.0


def _doctor_secrets(cfg: Config) -> dict[str, int]:
    """`memtui doctor`'s secrets line, by kind: `secrets  N masked (2 jwt, 1 password)`."""
    result = memtui(cfg, "doctor")
    assert result.returncode == 0, result.stdout + result.stderr
    line = next(x for x in result.stdout.splitlines() if x.startswith("secrets"))
    total = int(line.split()[1].replace(",", ""))
    kinds = {}
    if "(" in line:
        for part in line[line.index("(") + 1 : line.rindex(")")].split(", "):
            n, kind = part.split(" ")
            kinds[kind] = int(n.replace(",", ""))
    assert sum(kinds.values()) == total
    return kinds


def test_doctor_counts_masked_secrets_by_kind_in_notes_and_titles_too(cfg: Config) -> None:
    write_secret_corpus(cfg.claude_dir)
    assert memtui(cfg, "index").returncode == 0
    before = _doctor_secrets(cfg)
    assert before["github-token"] >= 1 and before["private-key"] >= 1
    title = {"type": "custom-title", "customTitle": "pay via sk_" + "live_" + _rnd(24)}
    write(
        cfg.claude_dir / PROJECT_DIR / f"{SESSION}.jsonl",
        json.dumps(title | {"sessionId": SESSION}).encode() + b"\n",
    )
    assert memtui(cfg, "index").returncode == 0
    with Memory(cfg) as memory:
        memory.notes.save("Registry", "use glpat-" + _rnd(20), "state", by="person")
    after = _doctor_secrets(cfg)
    assert after == before | {
        "stripe-key": before["stripe-key"] + 1,
        "gitlab-token": before["gitlab-token"] + 1,
    }


def test_masking_off_and_allowlist(cfg: Config, tmp_path: Path, monkeypatch) -> None:
    key = "ghp_" + _rnd(36)
    allowed = "ghp_" + _rnd(36)
    masker = Masker.load(tmp_path / "d", tmp_path / "c", enabled=False)
    assert masker.mask(f"token {key}") == f"token {key}"
    (tmp_path / "c").mkdir()
    (tmp_path / "c" / "secrets-allow.txt").write_text(f"# mine\n{allowed}\nre:AKIA0{{16}}\n")
    masker = Masker.load(tmp_path / "d", tmp_path / "c")
    assert allowed in masker.mask(f"a {allowed} b")
    assert "AKIA" + "0" * 16 in masker.mask("AKIA" + "0" * 16)
    assert key not in masker.mask(f"a {key} b")
    assert masker.mask(key) == Masker.load(tmp_path / "d", tmp_path / "c").mask(key)
    monkeypatch.setenv("MEMTUI_MASK_SECRETS", "0")
    from memtui import config

    assert config.load().mask_secrets is False


def test_an_archive_from_before_masking_is_masked_in_place(cfg: Config) -> None:
    """Today's release stored secrets as written: schema 1, indexes built."""
    write_secret_corpus(cfg.claude_dir)
    with Memory(_cfg(cfg, mask_secrets=False)) as memory:
        memory.upkeep.ingest()
        assert PLANTED["github"][0] in memory.history.session_markdown(SESSION)
    conn = sqlite3.connect(cfg.db_path)  # back to the first schema, today's release's
    base = {"meta", "projects", "sessions", "files", "messages", "uuids", "pending_titles"}
    tables = [r[0] for r in conn.execute("SELECT name FROM sqlite_master WHERE type = 'table'")]
    for table in tables:
        if table not in base and not table.startswith("sqlite_"):
            conn.execute(f"DROP TABLE {table}")
    conn.execute("DELETE FROM meta WHERE key NOT IN ('seq', 'fts_seq', 'text_seq', 'last_ingest')")
    before_work(conn)
    conn.execute("PRAGMA user_version = 1")
    conn.commit()
    conn.close()
    assert PLANTED["github"][0].encode() in data_bytes(cfg.data_dir)
    result = memtui(cfg, "stats")  # any command upgrades the archive
    assert result.returncode == 0, result.stderr
    raw = data_bytes(cfg.data_dir)
    for value in secret_values():
        assert value.encode() not in raw, value
    with Memory(cfg) as memory:
        assert (
            memory._archive.conn.execute("PRAGMA user_version").fetchone()[0] == db.SCHEMA_VERSION
        )
        assert memory.upkeep.masked_counts()
        assert memory.history.search("webhook signing", "hybrid").results


def test_an_archive_masked_by_the_older_rules_is_masked_again(cfg: Config) -> None:
    """Schema 5 masked without git branches (and other kinds since): 6 masks it again."""
    write_secret_corpus(cfg.claude_dir)
    with Memory(cfg) as memory:
        memory.upkeep.ingest()
    branch = "deploy/ghp_" + _rnd(36)
    conn = sqlite3.connect(cfg.db_path)
    conn.execute("UPDATE sessions SET git_branch = ? WHERE id = ?", (branch, SESSION))
    conn.execute("UPDATE meta SET value = '0' WHERE key = 'mask_pending'")
    before_work(conn)
    conn.execute("PRAGMA user_version = 5")
    conn.commit()
    conn.close()
    assert branch.encode() in data_bytes(cfg.data_dir)
    result = memtui(cfg, "stats")  # any command upgrades the archive
    assert result.returncode == 0, result.stderr
    assert branch[7:].encode() not in data_bytes(cfg.data_dir)
    with Memory(cfg) as memory:
        info, _ = memory.history.session_messages(SESSION)
        assert (info.git_branch or "").startswith("deploy/\u2039secret:")


def test_an_archive_at_schema_6_has_the_issue_25_kinds_masked(cfg: Config) -> None:
    """Schema 6 stored the issue-25 kinds as written: 7 masks them and rebuilds the index."""
    main = cfg.claude_dir / PROJECT_DIR / f"{SESSION}.jsonl"
    for n, kind in enumerate(MARKED):
        write(main, user(f"k{n}", f"please look: {_planted(kind)}", SESSION))
    with Memory(_cfg(cfg, mask_secrets=False)) as memory:
        memory.upkeep.ingest()
        assert memory.history.search(PLANTED["curl-user"][0], "fts").results
    conn = sqlite3.connect(cfg.db_path)
    conn.execute("UPDATE meta SET value = '0' WHERE key = 'mask_pending'")
    before_work(conn)
    conn.execute("PRAGMA user_version = 6")
    conn.commit()
    conn.close()
    result = memtui(cfg, "stats")  # any command upgrades the archive
    assert result.returncode == 0, result.stderr
    raw = data_bytes(cfg.data_dir)
    with Memory(cfg) as memory:
        for kind in MARKED:
            for value in PLANTED[kind][0].splitlines():
                assert value.encode() not in raw, kind
                assert not memory.history.search(value, "fts").results, kind


def test_an_archive_at_schema_4_has_its_notes_and_inferences_masked(cfg: Config) -> None:
    """Schema 4 had notes, signals and inferences, stored as written; masking came with 5."""
    write_secret_corpus(cfg.claude_dir)
    key, title_key = "ghp_" + _rnd(36), "sk-ant-api03-" + _rnd(90)
    tag_key, folder_key = "glpat-" + _rnd(20), "AKIA" + _rnd(16, UP)
    with Memory(_cfg(cfg, mask_secrets=False)) as memory:
        memory.upkeep.ingest()
        note = memory.notes.save(
            f"Deploy with {title_key}",
            f"the token is {key}; see [[Runbook {key}]]",
            "state",
            by="agent",
            tags=["ops", tag_key],
            folder=f"ops/{folder_key}",
        ).note
        assert key in note.body
        minted = memory.inferences.mint(
            "Deploys need a token", "so it says", 0.5, confirmed=True, evidence_note_ids=[note.id]
        )
        assert memory.notes.search(key, mode="fts").results  # full text has it, committed
    conn = sqlite3.connect(cfg.db_path)
    for table in ("forgotten_sessions", "blocked_projects", "forget_pending"):
        conn.execute(f"DROP TABLE {table}")
    conn.execute("DELETE FROM meta WHERE key = 'mask_pending'")
    before_work(conn)
    conn.execute("PRAGMA user_version = 4")
    conn.commit()
    conn.close()
    raw = data_bytes(cfg.data_dir)
    assert key.encode() in raw and title_key.encode() in raw
    # as Tantivy keeps it: a token, lowercased, its end perhaps stemmed away ("…uer" -> "…u")
    indexed = key[4:20].lower().encode()
    assert index_terms(cfg.index_dir, indexed.decode())
    result = memtui(cfg, "stats")  # any command upgrades the archive
    assert result.returncode == 0, result.stderr
    raw = data_bytes(cfg.data_dir)
    for value in [key, title_key, tag_key, folder_key, *secret_values()]:
        assert value.encode() not in raw, value
    assert not index_terms(cfg.index_dir, indexed.decode())
    with Memory(cfg) as memory:
        masked = memory.notes.get(note.id).note
        assert "\u2039secret:github-token:" in masked.body
        assert "\u2039secret:anthropic-key:" in masked.title
        assert masked.folder.startswith("ops/\u2039secret:aws-access-key:")
        assert memory.notes.list(tag=tag_key) == [masked]
        assert memory.notes.search("runbook").results[0].note.id == note.id
        assert memory.inferences.get_inference(minted.id).status == "active"


# -- forget -------------------------------------------------------------------------------------

SENTENCE = "the quokka vortex ledger sings zqxjvortal at dawn"
UNIQUE = (b"zqxjvortal", b"quokka vortex ledger")


def _forget_corpus(claude_dir: Path) -> Path:
    path = claude_dir / PROJECT_DIR / "f0f0f0f0-0000-4000-8000-00000000000f.jsonl"
    session = path.stem
    write(path, user("fu1", f"remember that {SENTENCE}", session))
    write(path, assistant("fa1", "msg_f1", text(f"Noted: {SENTENCE}. " + "x " * 60), session))
    other = claude_dir / "-home-dev-other" / "0a0a0a0a-0000-4000-8000-00000000000a.jsonl"
    write(
        other,
        user("ou1", "an unrelated question about checkout totals", other.stem, cwd="/home/dev/o"),
    )
    return path


def _found(memory: Memory) -> dict[str, int]:
    """Hits in the shop-api project per mode (vector search always answers its nearest, so
    the other project's message may come back)."""
    return {
        mode: sum(
            r.project == "/home/dev/shop-api"
            for r in memory.history.search("zqxjvortal quokka", mode, limit=10).results
        )
        for mode in ("fts", "vector", "hybrid")
    }


def _no_bytes_left(data_dir: Path) -> None:
    raw = data_bytes(data_dir)
    for word in UNIQUE:
        assert word not in raw, word
    out = subprocess.run(["grep", "-ra", "zqxjvortal", str(data_dir)], capture_output=True)
    assert out.returncode == 1, out.stdout[:200]
    assert not index_terms(data_dir / "index", "zqxjvortal")


def test_forget_a_session_leaves_no_byte(cfg: Config) -> None:
    path = _forget_corpus(cfg.claude_dir)
    session = path.stem
    # Its work too: a command and a file named with the words, the result a batch later (so
    # the work index wrote the rows twice).
    work = (
        Session(session, "/home/dev/shop-api", "2026-11-01")
        .call("msg_f2", "toolu_f2", "Bash", command="grep -r zqxjvortal docs/quokka")
        .call("msg_f3", "toolu_f3", "Edit", file_path="/home/dev/shop-api/zqxjvortal.md")
        .result("toolu_f2", "Exit code 1\nzqxjvortal: No such file", is_error=True)
        .result("toolu_f3", "The file was updated", is_error=False)
    )
    with Memory(cfg) as memory:
        write(path, work.jsonl(0, 2))
        memory.upkeep.ingest()
        write(path, work.jsonl(2))
        memory.upkeep.ingest()
        assert all(_found(memory).values())
        assert [c.did for c in memory.work.files("zqxjvortal.md").conversations] == [["edit"]]
        _, views = memory.history.session_messages(session)
        uuids = sorted(v.uuid for v in views)
        for refused in (False, "yes", 1, None):
            with pytest.raises(NotConfirmed):
                memory.forget(session_id=session, confirmed=refused)
        receipt = memory.forget(session_id=session, confirmed=True)
        assert (receipt.sessions, receipt.messages) == (1, 6)
        assert memory.work.files("zqxjvortal.md").conversations == []
        lines = sorted([f"session:{session}"] + [f"message:{u}" for u in uuids])
        assert receipt.sha256 == hashlib.sha256("\n".join(lines).encode()).hexdigest()
        assert not any(_found(memory).values())
    _no_bytes_left(cfg.data_dir)
    receipts = (cfg.data_dir / "forget-receipts.jsonl").read_text().splitlines()
    assert json.loads(receipts[-1])["sha256"] == receipt.sha256
    # Re-ingest (the transcript is still there, and grows), reindex, repair, restart.
    write(path, user("fu2", f"again {SENTENCE}", session))
    assert memtui(cfg, "index").returncode == 0
    assert memtui(cfg, "reindex").returncode == 0
    assert memtui(cfg, "doctor", "--repair").returncode == 0
    with Memory(cfg) as memory:
        memory.upkeep.ingest()
        assert not any(_found(memory).values())
        assert memory.history.search("checkout totals", "fts").results
    _no_bytes_left(cfg.data_dir)


def test_the_log_never_names_a_forgotten_session(cfg: Config, tmp_path: Path) -> None:
    """Issue 25: the log (outside the data dir) kept a forgotten session's id and transcript
    path. It names neither now, a log written before this release included."""
    path = _forget_corpus(cfg.claude_dir)
    session = path.stem
    state = tmp_path / "state"
    older = state / "memtui" / "log"  # platformdirs' user_log_dir under XDG_STATE_HOME
    older.mkdir(parents=True)
    (older / "memtui.log.1").write_text(
        f"2026-11-01 10:00:00,000 7 memtui.ingest.reader INFO reading {path} from the start\n"
        f"2026-11-01 10:00:01,000 7 memtui.mcp.server ERROR tool show failed: {session}\n"
    )
    env = {"XDG_STATE_HOME": str(state)}
    assert memtui(cfg, "index", **env).returncode == 0
    assert memtui(cfg, "forget", "--session", session, "--yes", **env).returncode == 0
    assert memtui(cfg, "index", **env).returncode == 0
    logs = [p for p in state.rglob("*") if p.is_file() and p.name.startswith("memtui.log")]
    assert len(logs) == 2
    logged = "".join(p.read_text() for p in logs)
    hashed = unnamed(str(path), (older / "log.key").read_bytes())
    assert logged.count(f"reading {hashed} from the start") == 2  # the old line and today's
    for name in (session, session.upper(), str(path), path.name, path.parent.name):
        assert name not in logged, name


def test_forget_scrubs_the_vector_snapshot_in_place(cfg: Config) -> None:
    """Only what held the forgotten rows is rewritten: their rows of the snapshot are zeroed
    where they are, not the whole file written again (seconds at 200k messages)."""
    path = _forget_corpus(cfg.claude_dir)
    folder = cfg.index_dir / "vectors"
    with Memory(cfg) as memory:
        memory.upkeep.ingest()
        (before,) = folder.glob("*.hnsw")
        inode = before.stat().st_ino
        memory.forget(session_id=path.stem, confirmed=True)
        (after,) = folder.glob("*.hnsw")
        assert after.stat().st_ino == inode and after.name != before.name
        assert not _found(memory)["vector"]
    with Memory(cfg) as memory:  # another process loads the renamed snapshot
        assert memory._index().vectors.watermark == int(after.name.split("-")[1])
        assert memory.history.search("checkout totals", "vector").results
    _no_bytes_left(cfg.data_dir)


def _segment_ids(path: Path) -> set[str]:
    return {s["segment_id"] for s in json.loads((path / "meta.json").read_text())["segments"]}


def test_the_full_text_purge_rewrites_only_the_segments_that_held_the_documents(
    tmp_path: Path,
) -> None:
    """A segment with deleted documents of other messages (changed since: every live session
    has some) is left alone; one holding an older version of a forgotten message is not."""
    fts = FullText(tmp_path)

    def doc(i: int, words: str) -> FtsDoc:
        return FtsDoc(i, "s", "/p", "user", "prompt", 0, words, "")

    docs = {i: doc(i, f"message {i}") for i in range(1, 11)}
    fts.write([docs[i] for i in range(1, 6)])  # segment A
    fts.write([docs[i] for i in range(6, 11) if i != 7] + [doc(7, "zqxjvortal first draft")])
    fts.write([docs[7]])  # 7 changed: its first version is a deleted document of segment B
    fts.write([docs[3]])  # 3 rewritten: a deleted document in A
    segments = _segment_ids(tmp_path)
    assert len(segments) == 4
    fts.purge({1}, lambda kept: [docs[i] for i in kept])
    assert len(segments - _segment_ids(tmp_path)) == 1  # A, which held 1; not B
    assert index_terms(tmp_path, "zqxjvortal")
    fts.purge({7}, lambda kept: [docs[i] for i in kept])  # B goes: it held 7's old version
    assert not index_terms(tmp_path, "zqxjvortal")
    assert len(fts.search("message", None, 20)) == 8


def test_a_partitioned_purge_rewrites_only_the_sessions_partition(tmp_path: Path) -> None:
    """A session's documents share a partition: forgetting it rewrites that partition's
    segments and leaves the others' files as they were."""
    fts = FullText(tmp_path, 4)
    docs = {
        i: FtsDoc(i, f"s{i % 8}", "/p", "user", "prompt", 0, f"message {i}", "")
        for i in range(1, 81)
    }
    docs[3] = FtsDoc(3, "s3", "/p", "user", "prompt", 0, "zqxjvortal in session three", "")
    fts.write(docs.values())
    parts = sorted(tmp_path.glob("p*"))
    before = {p: _segment_ids(p) for p in parts}
    gone = {i for i, d in docs.items() if d.session_id == "s3"}
    rewritten = fts.purge(gone, lambda kept: [docs[i] for i in kept])
    changed = [p for p in parts if _segment_ids(p) != before[p]]
    assert len(changed) == 1
    assert not index_terms(tmp_path, "zqxjvortal")
    # s1 shares s3's partition (by the sessions' CRC-32), so its 10 documents are written again;
    # the other 60 stay where they were.
    assert rewritten == 10
    assert fts.ids() == set(docs) - gone


def test_compacting_a_partition_keeps_its_answers_in_fewer_segments(tmp_path: Path) -> None:
    """A partition written a commit at a time is left in many segments; compacting rewrites it
    from the store in one pass: the same documents found, in few segments, and an older
    version's words gone with the segment that held them."""
    fts = FullText(tmp_path, 2)
    docs = {
        i: FtsDoc(i, f"s{i % 5}", "/p", "user", "prompt", 0, f"deploy message {i} of {i % 3}", "")
        for i in range(1, 121)
    }
    draft = FtsDoc(7, "s2", "/p", "user", "prompt", 0, "zqxjvortal first draft", "")
    for start in range(1, 121, 10):  # twelve commits, the last with a draft of 7
        fts.write([docs[i] for i in range(start, start + 10)] + ([draft] if start > 110 else []))
    fts.write([docs[7]])
    crowded = fts.crowded()
    assert crowded, [len(_segment_ids(p)) for p in sorted(tmp_path.glob("p*"))]
    before = fts.search("deploy message 7 of 1", None, 200)
    assert index_terms(tmp_path, "zqxjvortal")  # 7's first version, deleted, still on disk
    rewritten = sum(fts.compact(n, lambda kept: [docs[i] for i in kept]) for n in crowded)
    assert rewritten == sum(1 for d in docs.values() if fts._part_of(d.session_id) in crowded)
    assert not fts.crowded()
    # The deleted draft no longer counts in the words' statistics (as after Tantivy's own
    # merges): scores move a little, and the order of near ties with them.
    after = fts.search("deploy message 7 of 1", None, 200)
    assert after[0][0] == before[0][0] == 7
    assert {mid for mid, _ in after} == {mid for mid, _ in before}
    assert fts.ids() == set(docs)
    assert not index_terms(tmp_path, "zqxjvortal")


def test_forget_a_project_blocks_it_until_undo(cfg: Config) -> None:
    _forget_corpus(cfg.claude_dir)
    project = "/home/dev/shop-api"
    assert memtui(cfg, "index").returncode == 0
    result = memtui(cfg, "forget", "--project", project, "--yes")
    assert result.returncode == 0, result.stderr
    assert "sha256" in result.stdout
    _no_bytes_left(cfg.data_dir)
    fresh = cfg.claude_dir / PROJECT_DIR / "b1b1b1b1-0000-4000-8000-0000000000b1.jsonl"
    write(fresh, user("new1", "zqxjvortal in a new session", fresh.stem))
    assert memtui(cfg, "index").returncode == 0
    _no_bytes_left(cfg.data_dir)
    assert memtui(cfg, "forget", "--project", project, "--undo").returncode == 0
    later = cfg.claude_dir / PROJECT_DIR / "c2c2c2c2-0000-4000-8000-0000000000c2.jsonl"
    write(later, user("new2", "a later session about refunds", later.stem))
    assert memtui(cfg, "index").returncode == 0
    with Memory(cfg) as memory:
        assert memory.history.search("refunds", "fts").results
        assert not memory.history.search("zqxjvortal", "fts").results


def test_forget_cli_refuses_without_yes_and_bad_input(cfg: Config) -> None:
    _forget_corpus(cfg.claude_dir)
    assert memtui(cfg, "index").returncode == 0
    no = memtui(cfg, "forget", "--session", "f0f0f0f0")  # stdin is not a terminal: no answer
    assert one_line_error(no) and "NOT_CONFIRMED" in no.stderr
    assert one_line_error(memtui(cfg, "forget", "--session", "nope", "--yes"))
    assert one_line_error(memtui(cfg, "forget", "--project", "/nowhere", "--yes"))
    # A search takes a part of a project's path; a forget names what goes whole, and says it.
    part = memtui(cfg, "forget", "--project", "shop-api", "--yes")
    assert one_line_error(part) and "NOT_FOUND" in part.stderr, part.stderr
    assert "a forget takes the whole directory: /home/dev/shop-api?" in part.stderr
    # What names nothing is said before anyone is asked to confirm it.
    for missing in (("--project", "shop-api"), ("--session", "nope"), ("--note", "999")):
        unasked = memtui(cfg, "forget", *missing)
        assert one_line_error(unasked) and "NOT_FOUND" in unasked.stderr, unasked.stderr
    asked = memtui(cfg, "forget", "--session", "f0f0f0f0")
    assert "NOT_CONFIRMED" in asked.stderr and "f0f0f0f0-0000" in asked.stderr, "named in full"
    with Memory(cfg) as memory:
        assert memory.history.search("zqxjvortal", "fts").results


def test_forget_waits_briefly_for_a_reader_then_says_the_wal_stayed(cfg: Config) -> None:
    path = _forget_corpus(cfg.claude_dir)
    with Memory(cfg) as memory:
        memory.upkeep.ingest()
        reader = sqlite3.connect(cfg.db_path, isolation_level=None)
        reader.execute("BEGIN")
        reader.execute("SELECT count(*) FROM messages").fetchall()  # holds its snapshot
        started = time.monotonic()
        receipt = memory.forget(session_id=path.stem, confirmed=True)
        assert time.monotonic() - started < 10  # not the connection's 30 s busy timeout
        assert receipt.wal_truncated is False
        reader.execute("COMMIT")
        reader.close()
        line = (cfg.data_dir / "forget-receipts.jsonl").read_text().splitlines()[-1]
        assert json.loads(line)["wal_truncated"] is False
        other = memory.history.search("checkout totals", "fts").results[0].session_id
        assert memory.forget(session_id=other, confirmed=True).wal_truncated is True
        assert (cfg.data_dir / "memtui.db-wal").stat().st_size == 0
    _no_bytes_left(cfg.data_dir)


_KILLER = """
import os, signal, sys
from memtui.config import Config
from memtui.engine import forget as F
from memtui.engine.memory import Memory
from memtui.store import indexes as I
from memtui.store import vectors as V
from pathlib import Path
point = sys.argv[1]
def die(*a, **k):
    os.kill(os.getpid(), signal.SIGKILL)
if point == "before-commit":
    F.Forgetter._record_pending = die
elif point == "indexes":
    I.Indexes.forget = die
elif point == "vectors":
    V.Vectors.scrub = die
elif point == "vectors-midway":  # rows zeroed in place, the codes and the name not yet
    V._write_kept_codes = die
elif point == "receipt":
    F._append_receipt = die
cfg = Config(Path(sys.argv[2]), Path(sys.argv[3]), Path(sys.argv[4]))
memory = Memory(cfg)
memory.forget(session_id=sys.argv[5], confirmed=True)
"""


@pytest.mark.parametrize(
    "point", ["before-commit", "indexes", "vectors", "vectors-midway", "receipt"]
)
def test_kill_9_during_forget_is_all_or_nothing(cfg: Config, point: str) -> None:
    path = _forget_corpus(cfg.claude_dir)
    with Memory(cfg) as memory:
        memory.upkeep.ingest()
    args = [str(cfg.data_dir), str(cfg.claude_dir), str(cfg.log_dir), path.stem]
    child = subprocess.run(
        [sys.executable, "-c", _KILLER, point, *args], env=env_for(cfg), capture_output=True
    )
    assert child.returncode == -9, child.stderr
    with Memory(cfg) as memory:  # the next start finishes it, or it never happened
        found = _found(memory)
        if point == "before-commit":
            assert all(found.values())
            return
        assert not any(found.values())
    _no_bytes_left(cfg.data_dir)
    assert "sha256" in (cfg.data_dir / "forget-receipts.jsonl").read_text()
    assert os.stat(cfg.data_dir / "forget-receipts.jsonl").st_mode & 0o777 == 0o600


# -- MCP ----------------------------------------------------------------------------------------


async def test_mcp_forget_refuses_unless_confirmed_is_true(cfg: Config) -> None:
    from mcp import Client
    from mcp.types import TextContent

    from memtui.mcp.engine import Engine
    from memtui.mcp.server import build_server

    path = _forget_corpus(cfg.claude_dir)
    write_secret_corpus(cfg.claude_dir)
    with Memory(cfg) as memory:
        memory.upkeep.ingest()
        _, views = memory.history.session_messages(path.stem)
        uuids = [v.uuid for v in views]
        server = build_server(Engine(memory=memory))
        async with Client(server, mode="legacy") as client:
            tools = {t.name: t for t in (await client.list_tools()).tools}
            hints = tools["forget"].annotations
            assert hints is not None and hints.destructive_hint and not hints.read_only_hint
            for args in ({}, {"confirmed": "yes"}, {"confirmed": 1}, {"confirmed": False}):
                result = await client.call_tool("forget", {"session_id": path.stem, **args})
                block = result.content[0]
                assert result.is_error and isinstance(block, TextContent)
                assert block.text.startswith("NOT_CONFIRMED: "), block.text
            # No planted secret comes back from a tool or a resource.
            for value in secret_values():
                found = await client.call_tool("search_history", {"query": value, "limit": 50})
                assert value not in str(found.content)
            page = await client.read_resource(f"memtui://sessions/{SESSION}")
            assert not any(v in str(page) for v in secret_values())
            result = await client.call_tool("forget", {"session_id": path.stem, "confirmed": True})
            assert not result.is_error, result.content
            receipt = result.structured_content
            assert receipt is not None and receipt["messages"] == 2
            lines = sorted([f"session:{path.stem}"] + [f"message:{u}" for u in uuids])
            assert receipt["sha256"] == hashlib.sha256("\n".join(lines).encode()).hexdigest()
    _no_bytes_left(cfg.data_dir)


# -- doctor -------------------------------------------------------------------------------------


@pytest.fixture
def indexed(cfg: Config) -> Config:
    _forget_corpus(cfg.claude_dir)
    write_secret_corpus(cfg.claude_dir)
    assert memtui(cfg, "index").returncode == 0
    return cfg


def _truncate_snapshot(cfg: Config) -> None:
    (snapshot,) = (cfg.index_dir / "vectors").glob("vectors-*.hnsw")
    with open(snapshot, "r+b") as f:
        f.truncate(snapshot.stat().st_size // 2)


@pytest.mark.parametrize(
    "damage",
    [
        lambda cfg: __import__("shutil").rmtree(cfg.index_dir / "vectors"),
        lambda cfg: __import__("shutil").rmtree(cfg.index_dir / "text"),
        _truncate_snapshot,
    ],
    ids=["vectors-deleted", "fts-deleted", "vectors-torn"],
)
def test_doctor_sees_a_missing_or_torn_index_and_repair_rebuilds_it(indexed: Config, damage):
    damage(indexed)
    doctor = memtui(indexed, "doctor")
    assert doctor.returncode == 1 and "missing" in doctor.stdout, doctor.stdout
    repaired = memtui(indexed, "doctor", "--repair")
    assert repaired.returncode == 0 and "repaired" in repaired.stdout, repaired.stdout
    assert memtui(indexed, "doctor").returncode == 0
    stats = json.loads(memtui(indexed, "stats", "--json").stdout)
    assert stats["index"]["vectors"] > 0 and stats["index"]["fts_docs"] > 0
    assert "in step" in memtui(indexed, "stats").stdout


def test_doctor_on_a_damaged_store_offers_and_runs_the_recovery(indexed: Config) -> None:
    size = indexed.db_path.stat().st_size
    with open(indexed.db_path, "r+b") as f:
        f.seek(size // 3)
        f.write(os.urandom(min(200_000, size // 3)))
    stats = memtui(indexed, "stats")
    assert one_line_error(stats) and "STORE_CORRUPT" in stats.stderr
    search = memtui(indexed, "search", "checkout")  # the same answer as stats, not a result
    assert one_line_error(search) and "STORE_CORRUPT" in search.stderr
    doctor = memtui(indexed, "doctor")
    assert doctor.returncode == 1 and "restore" in doctor.stderr
    assert "damaged" in doctor.stdout and "lost:" in doctor.stdout
    repaired = memtui(indexed, "doctor", "--repair", "--yes")
    assert repaired.returncode == 0, repaired.stderr
    kept = [p for p in indexed.data_dir.glob("memtui.db.damaged-*") if p.name[-4:-3] != "-"]
    assert len(kept) == 1 and kept[0].stat().st_size == size
    found = json.loads(memtui(indexed, "search", "checkout totals", "--json").stdout)
    assert found["results"]
    assert memtui(indexed, "doctor").returncode == 0


def _zero_page_holding(path: Path, marker: bytes) -> None:
    """Zero the page of `path` that holds `marker`: a page SQLite reads as malformed."""
    data = path.read_bytes()
    page = int.from_bytes(data[16:18], "big")
    at = data.index(marker) // page * page
    with open(path, "r+b") as f:
        f.seek(at)
        f.write(bytes(page))


def test_repair_keeps_forgets_and_what_only_the_store_held(indexed: Config) -> None:
    forgotten = "f0f0f0f0-0000-4000-8000-00000000000f"
    with Memory(indexed) as memory:
        target = memory.notes.save("Link target", "see [[Note 1]]", "state", by="person").note
        for i in range(60):  # a few notes a page: one zeroed page loses a few of them
            memory.notes.save(
                f"Note {i}",
                f"MARK{i:02d} [[Link target]] " + "w " * 300,
                "past",
                by="person",
                folder="f",
                tags=["t"],
            )
        rule = memory.notes.save("Use uv", "always uv", "rule", by="agent").note
        memory.notes.approve(rule.id)
        gone = memory.notes.save("Gone note", "forgotten", "state", by="person").note
        memory.forget(note_id=gone.id, confirmed=True)
        minted = memory.inferences.mint(
            "Links matter", "they do", 0.6, confirmed=True, evidence_note_ids=[target.id]
        )
        with db.Writer(indexed.db_path).transaction() as conn:
            signals_store.upsert_found(
                conn,
                [("hidden_arc", "fp1", "an arc", "", [target.id], [], "p1")],
                ["hidden_arc"],
                "2026-11-25T00:00:00",
            )
        for signal in memory.signals.list(None, None, 10).signals:
            memory.signals.update_status(signal.id, "dismissed")
        with db.Writer(indexed.db_path).transaction() as conn:
            decided = {(r.fingerprint, r.status) for r in signals_store.triaged(conn)}
        assert decided
        memory.forget(session_id=forgotten, confirmed=True)
        memory.forget(project="/home/dev/o", confirmed=True)
    _zero_page_holding(indexed.db_path, b"MARK30")
    doctor = memtui(indexed, "doctor")
    assert doctor.returncode == 1, doctor.stderr
    assert "notes" in doctor.stdout and "inference" in doctor.stdout
    assert "lost:" in doctor.stdout and "kept forgotten: 2 sessions, 1 project" in doctor.stdout
    refused = memtui(indexed, "doctor", "--repair")  # no terminal, no --yes: nothing moved
    assert one_line_error(refused) and "NOT_CONFIRMED" in refused.stderr
    assert not list(indexed.data_dir.glob("memtui.db.damaged-*"))
    repaired = memtui(indexed, "doctor", "--repair", "--yes")
    assert repaired.returncode == 0, repaired.stderr
    assert "saved:" in repaired.stdout and "lost:" in repaired.stdout
    assert not list(indexed.data_dir.glob("notes-salvaged-*"))  # imported: no copy left
    assert one_line_error(memtui(indexed, "show", forgotten))
    with Memory(indexed) as memory:
        assert not memory.history.search("zqxjvortal", "fts").results
        assert not memory.history.search("checkout totals", "fts").results
        notes = {n.title: n for n in memory.notes.export_all()}
        assert "Gone note" not in notes and notes["Use uv"].status == "approved"
        kept = [t for t in notes if t.startswith("Note ")]
        assert 50 <= len(kept) < 60 and "Note 30" not in kept
        assert f"{60 - len(kept)} notes" in repaired.stdout
        assert notes["Note 1"].tags == ["t"] and notes["Note 1"].folder == "f"
        backlinks = memory.notes.get(notes["Link target"].id).backlinks
        assert len(backlinks) == len(kept)
        assert memory.inferences.get_inference(minted.id).title == "Links matter"
        (signal,) = memory.signals.list(None, None, 10).signals
        with db.Writer(indexed.db_path).transaction() as conn:
            after = {(r.fingerprint, r.status) for r in signals_store.triaged(conn)}
        # Every decision kept; a dismissed pattern found again on what is left of its evidence
        # (a note was lost) is dismissed too.
        assert decided <= after and {status for _, status in after - decided} <= {"dismissed"}
    assert memtui(indexed, "doctor").returncode == 0
    assert json.loads(memtui(indexed, "stats", "--json").stdout)["sessions"] == 1


def test_doctor_reads_bytes_that_are_not_utf8_as_the_store_does(indexed: Config) -> None:
    """A store another tool wrote to may hold a byte that is not UTF-8: doctor counts the
    sessions and a recovery keeps the note (U+FFFD for the byte), as every read does."""
    with Memory(indexed) as memory:
        note = memory.notes.save("Kept", "body", "past", by="person").note
        sessions = len(memory.history.list_sessions(limit=1000))
    with sqlite3.connect(indexed.db_path) as conn:
        conn.execute("UPDATE notes SET body = CAST(x'6361ff66' AS TEXT) WHERE id = ?", (note.id,))
        conn.execute("UPDATE files SET path = path || CAST(x'ff' AS TEXT) WHERE rowid = 1")
    assert check_store(indexed).sessions == sessions
    assert [n.body for n in salvage(indexed, indexed.db_path).notes] == ["ca\ufffdf"]


def test_repair_of_a_truncated_store_reads_the_notes_left_in_it(indexed: Config) -> None:
    with Memory(indexed) as memory:
        for i in range(300):
            memory.notes.save(f"Note {i}", f"body {i} " + "w " * 400, "past", by="person")
        memory.forget(session_id="f0f0f0f0", confirmed=True)
    os.truncate(indexed.db_path, indexed.db_path.stat().st_size * 2 // 3)  # shorter than its header
    repaired = memtui(indexed, "doctor", "--repair", "--yes")
    assert repaired.returncode == 0, repaired.stderr
    assert one_line_error(memtui(indexed, "show", "f0f0f0f0"))
    with Memory(indexed) as memory:
        kept = len(memory.notes.export_all())
    assert 0 < kept < 300 and f"lost: {300 - kept} notes" in repaired.stdout, repaired.stdout


def test_repair_at_a_terminal_asks_and_a_no_changes_nothing(indexed: Config) -> None:
    pty = pytest.importorskip("pty")
    _zero_page_holding(indexed.db_path, b"quokka vortex")
    for answer, code in ((b"n\n", 1), (b"y\n", 0)):
        leader, follower = pty.openpty()
        os.write(leader, answer)
        result = subprocess.run(
            [sys.executable, "-m", "memtui", "doctor", "--repair"],
            env=env_for(indexed),
            stdin=follower,
            capture_output=True,
            text=True,
            timeout=180,
        )
        os.close(follower)
        os.close(leader)
        assert result.returncode == code, result.stderr
        assert "Rebuild the store, losing what is listed as lost? [y/N]" in result.stderr
        moved = list(indexed.data_dir.glob("memtui.db.damaged-*"))
        assert bool(moved) == (code == 0) and ("nothing changed" in result.stderr) == bool(code)


def test_a_zero_byte_store_is_reported_not_taken_for_new(indexed: Config) -> None:
    indexed.db_path.write_bytes(b"")
    for name in ("memtui.db-wal", "memtui.db-shm"):
        (indexed.data_dir / name).unlink(missing_ok=True)
    stats = memtui(indexed, "stats")
    assert one_line_error(stats) and "0 bytes" in stats.stderr, stats.stderr
    doctor = memtui(indexed, "doctor")
    assert doctor.returncode == 1 and "empty (0 bytes)" in doctor.stdout
    assert memtui(indexed, "doctor", "--repair", "--yes").returncode == 0
    assert json.loads(memtui(indexed, "stats", "--json").stdout)["sessions"] == 3
    assert memtui(indexed, "forget", "--session", "f0f0f0f0", "--yes").returncode == 0
    assert memtui(indexed, "forget", "--project", "/home/dev/o", "--yes").returncode == 0
    indexed.db_path.write_bytes(b"")  # only forget-receipts.jsonl knows of the forgets now
    for name in ("memtui.db-wal", "memtui.db-shm"):
        (indexed.data_dir / name).unlink(missing_ok=True)
    assert "every note (unreadable)" in memtui(indexed, "doctor").stdout
    assert memtui(indexed, "doctor", "--repair", "--yes").returncode == 0
    assert json.loads(memtui(indexed, "stats", "--json").stdout)["sessions"] == 1
    fresh = indexed.claude_dir / "-home-dev-other" / "0b0b0b0b-0000-4000-8000-00000000000b.jsonl"
    write(
        fresh, user("ou2", "a new session of the forgotten project", fresh.stem, cwd="/home/dev/o")
    )
    assert memtui(indexed, "index").returncode == 0  # the project is still blocked
    assert json.loads(memtui(indexed, "stats", "--json").stdout)["sessions"] == 1


def test_notes_are_masked_and_a_forgotten_note_leaves_no_byte(cfg: Config) -> None:
    key = "ghp_" + _rnd(36)
    with Memory(cfg) as memory:
        kept = memory.notes.save("Deploy steps", "run make deploy", "state", by="person")
        saved = memory.notes.save(
            "Quokka ledger", f"{SENTENCE}; token {key}", "state", by="agent"
        ).note
        assert key not in saved.body and "\u2039secret:github-token:" in saved.body
        assert memory.notes.search("zqxjvortal").results
        with pytest.raises(NotConfirmed):
            memory.forget(note_id=saved.id, confirmed="yes")
        receipt = memory.forget(note_id=saved.id, confirmed=True)
        assert receipt.notes == 1
        assert receipt.sha256 == hashlib.sha256(f"note:{saved.id}".encode()).hexdigest()
        hits = memory.notes.search("zqxjvortal").results
        assert all(h.note.id != saved.id for h in hits)
        assert memory.notes.search("deploy").results[0].note.id == kept.note.id
    _no_bytes_left(cfg.data_dir)
    assert memtui(cfg, "reindex").returncode == 0
    assert memtui(cfg, "doctor", "--repair").returncode == 0
    _no_bytes_left(cfg.data_dir)


def test_a_forgotten_note_leaves_no_copy_in_a_notes_index_set_aside(cfg: Config) -> None:
    """A damaged notes' full-text index is set aside (its segments hold every word it had) and
    rebuilt: a later forget must remove that copy too, as it does the messages' one."""
    with Memory(cfg) as memory:
        saved = memory.notes.save("Quokka ledger", SENTENCE, "state", by="person").note
    (cfg.index_dir / "notes" / "fts" / "meta.json").write_text("garbage")
    with Memory(cfg) as memory:
        assert memory.notes.search("zqxjvortal").results  # rebuilt beside the copy set aside
        assert (cfg.index_dir / "notes" / "fts.damaged").is_dir()
        memory.forget(note_id=saved.id, confirmed=True)
    assert not list(cfg.index_dir.rglob("*.damaged"))
    _no_bytes_left(cfg.data_dir)


def test_forgotten_evidence_leaves_its_inference_stale_and_no_byte(cfg: Config) -> None:
    path = _forget_corpus(cfg.claude_dir)
    with Memory(cfg) as memory:
        memory.upkeep.ingest()
        note = memory.notes.save("Quokka notes", f"I read: {SENTENCE}", "state", by="person").note
        minted = memory.inferences.mint(
            "Quokkas sing at dawn",
            "the ledger says so",
            0.7,
            confirmed=True,
            evidence_message_uuids=["fu1", "fa1"],
        )
        from_note = memory.inferences.mint(
            "Noted quokkas", "the note says so", 0.6, confirmed=True, evidence_note_ids=[note.id]
        )
        assert minted.status == from_note.status == "active"
        with db.Writer(cfg.db_path).transaction() as conn:  # what detection would have found
            ids = [
                r[0]
                for r in conn.execute("SELECT id FROM messages WHERE session_id = ?", (path.stem,))
            ]
            signals_store.upsert_found(
                conn,
                [
                    ("recurring_error", "f1", f"{SENTENCE} keeps coming back", "", [], ids, "p1"),
                    (
                        "hidden_arc",
                        "f2",
                        f"notes unlinked: {note.title!r}",
                        "",
                        [note.id],
                        [],
                        "p2",
                    ),
                ],
                ["recurring_error", "hidden_arc"],
                "2026-11-25T00:00:00",
            )
        memory.forget(session_id=path.stem, confirmed=True)
        memory.forget(note_id=note.id, confirmed=True)
        for inference, refs in ((minted, ["fa1", "fu1"]), (from_note, [str(note.id)])):
            after = memory.inferences.get_inference(inference.id)
            assert after.status == "stale"
            assert sorted(e.ref for e in after.evidence) == refs
            assert {e.state for e in after.evidence} == {"deleted"}
            assert "from ]" not in after.citation
        assert "fa1"[:8] in memory.inferences.get_inference(minted.id).citation
        with db.Writer(cfg.db_path).transaction() as conn:
            left = conn.execute("SELECT title, detail, note_ids, message_ids FROM signals")
            assert {tuple(r) for r in left} == {("forgotten", "", "[]", "[]")}
    _no_bytes_left(cfg.data_dir)


def test_an_import_is_masked_as_it_is_stored(cfg: Config, tmp_path: Path) -> None:
    """A file exported with masking off (or by hand) holds secrets: importing it masks its
    notes' texts, tags and folders, and its inferences with their evidence."""
    secret = {k: "ghp_" + _rnd(36) for k in ("title", "body", "tag", "folder", "inf", "sum")}
    exported = tmp_path / "notes.jsonl"
    with Memory(_cfg(cfg, mask_secrets=False)) as memory:
        note = memory.notes.save(
            f"Key {secret['title']}",
            f"body {secret['body']}",
            "state",
            by="person",
            tags=[secret["tag"]],
            folder=f"ops/{secret['folder']}",
        ).note
        memory.inferences.mint(
            f"Uses {secret['inf']}",
            f"so {secret['sum']}",
            0.5,
            confirmed=True,
            evidence_note_ids=[note.id],
        )
        memory.transfer.export(exported)
    assert secret["tag"] in exported.read_text()
    other = _cfg(cfg, data_dir=tmp_path / "other")
    with Memory(other) as memory:
        memory.transfer.import_(exported)
        (inference,) = memory.inferences.list()
        assert inference.status == "active"  # the evidence's hash follows its masked text
    raw = data_bytes(other.data_dir)
    for name, value in secret.items():
        assert value.encode() not in raw, name
