"""Secrets masked before anything is stored: every text memtui keeps passes `Masker.mask`.

A secret becomes a marker, `secret:KIND:HASH` between single angle quotation marks
(U+2039, U+203A): the kind says what it was, the hash is an HMAC of the
value under a key kept in the data dir (`mask.key`, 0600), so the same secret gives the same
marker in every session (a person can see that two sessions used one key, and search for it)
while the marker says nothing about the value to anyone without the key.

The patterns are memtui's own. detect-secrets (the well-kept detector on PyPI) was measured
first: its default plugins take ~1.7 ms a line and flagged every line of plain English prose
in a sample (its keyword and entropy plugins fire on ordinary words), so a cold index of 200k
messages (millions of lines) would have taken hours and masked half the archive. These rules
each start from a cheap substring test, so a text with nothing that looks like a secret costs
one lowercase copy and a handful of `in` checks.

False positives are the person's to undo: `secrets-allow.txt` in the config dir lists exact
strings, or regexes written `re:PATTERN`, never to mask; MEMTUI_MASK_SECRETS=0 turns masking off.
"""

from __future__ import annotations

import hashlib
import hmac
import json
import math
import re
import sqlite3
import string
from collections import Counter
from collections.abc import Callable, Iterable
from dataclasses import dataclass, field
from pathlib import Path

import orjson

from memtui.config import secret_key
from memtui.progress import Meter
from memtui.store import db, notes, signals

KEY_FILE = "mask.key"
ALLOW_FILE = "secrets-allow.txt"
OPEN, CLOSE = "\u2039", "\u203a"
MARKER = re.compile(OPEN + r"secret:([a-z0-9-]+):([0-9a-f]{8})" + CLOSE)
_HASH_CHARS = 8
_MASK_BATCH = 5_000  # message ids per transaction when masking a stored archive


@dataclass(frozen=True, slots=True)
class _Rule:
    """A kind of secret: the regex runs only when one of `triggers` is in the text (or, with
    `lower`, in the lowercased text); `group` is the part of the match that is the secret."""

    kind: str
    triggers: tuple[str, ...]
    regex: re.Pattern[str]
    group: int = 0
    lower: bool = False


_TOKEN_CHARS = frozenset(string.ascii_letters + string.digits + "_-")
_E = r"(?![A-Za-z0-9_\-])"  # a token ends here (where one starts is checked on a match: a
# pattern that opens with a literal is found by a fast scan, one behind a lookbehind is not)

# A command-line argument's value, after an optional quote: inside the quotes, or up to a space.
_ARG = r"((?<=\")[^\"\n]{1,200}(?=\")|(?<=')[^'\n]{1,200}(?=')|(?<!['\"])[^\s'\"]{1,200})"

_PROVIDERS: tuple[_Rule, ...] = (
    _Rule(
        "private-key",
        ("PRIVATE KEY",),
        re.compile(
            r"-----BEGIN (?:[A-Z0-9]+ )*PRIVATE KEY(?: BLOCK)?-----"
            r"(?:[\s\S]*?-----END (?:[A-Z0-9]+ )*PRIVATE KEY(?: BLOCK)?-----|[A-Za-z0-9+/=\s:,\-]*)"
        ),
    ),
    _Rule("aws-access-key", ("AKIA", "ASIA"), re.compile(r"(?:AKIA|ASIA)[0-9A-Z]{16}" + _E)),
    _Rule(
        "github-token",
        ("ghp_", "gho_", "ghu_", "ghs_", "ghr_", "github_pat_"),
        re.compile(r"(?:gh[pousr]_[A-Za-z0-9]{36,255}|github_pat_[A-Za-z0-9_]{22,255})" + _E),
    ),
    _Rule(
        "gitlab-token",
        tuple(f"gl{p}-" for p in ("pat", "dt", "rt", "ptt", "cbt", "ft", "imt", "oas", "soat")),
        re.compile(r"gl(?:pat|dt|rt|ptt|cbt|ft|imt|oas|soat)-[A-Za-z0-9_\-]{20,255}" + _E),
    ),
    _Rule(
        "slack-token",
        ("xox", "hooks.slack.com"),
        re.compile(
            r"(?:xox[abposre]-[A-Za-z0-9\-]{10,255}"
            r"|https://hooks\.slack\.com/services/[A-Za-z0-9/]{20,})" + _E
        ),
    ),
    _Rule(
        "stripe-key",
        ("_live_", "_test_"),
        re.compile(r"(?:sk|rk)_(?:live|test)_[A-Za-z0-9]{16,255}" + _E),
    ),
    _Rule("anthropic-key", ("sk-ant-",), re.compile(r"sk-ant-[A-Za-z0-9_\-]{20,255}" + _E)),
    _Rule(
        "openai-key",
        ("sk-",),
        re.compile(
            r"sk-(?!ant-)(?:proj-|svcacct-|admin-)?(?=[A-Za-z0-9_\-]*\d)"
            r"[A-Za-z0-9_\-]{20,255}" + _E
        ),
    ),
    _Rule("google-api-key", ("AIza",), re.compile(r"AIza[0-9A-Za-z_\-]{35}" + _E)),
    _Rule(
        "jwt",
        ("eyJ",),
        re.compile(r"eyJ[A-Za-z0-9_\-]{8,}\.eyJ[A-Za-z0-9_\-]{8,}\.[A-Za-z0-9_\-]{8,}" + _E),
    ),
    _Rule(
        "url-password",
        ("://",),
        re.compile(
            r"\b[A-Za-z][A-Za-z0-9+.\-]{1,20}://[^\s:/@'\"<>]{0,100}:([^\s@/'\"<>]{1,200})@"
        ),
        group=1,
    ),
    _Rule(
        "authorization",
        ("authorization",),
        re.compile(
            r"(?i)\b(?:proxy-)?authorization\s*[:=]\s*[\"']?"
            r"(?:(?:bearer|basic|token|bot|digest|apikey)\s+)?([A-Za-z0-9._~+/=\-]{8,})"
        ),
        group=1,
        lower=True,
    ),
    # Passwords on a command line: `--password=P`, `--password P` (a lone lowercase word after
    # a space is taken for prose, "the --password flag"), and the MySQL clients' `-pP`.
    # A shell variable or a placeholder (`$PASS`, `<pw>`) is not a password.
    _Rule(
        "password",
        ("--passw",),
        re.compile(
            r"(?<![\w\-])--passw(?:or)?d(?:=|[ \t]+(?![a-z]+(?![^\s'\"])))"
            r"['\"]?(?![$<{%*\-])" + _ARG
        ),
        group=1,
    ),
    _Rule(
        "password",
        ("mysql", "mariadb"),
        re.compile(
            r"\b(?:mysql|mariadb)[a-z\-]*(?=[ \t])[^\n|;&]{0,300}?[ \t]-p['\"]?(?![$<{%*])" + _ARG
        ),
        group=1,
    ),
)

_CASED = tuple(r for r in _PROVIDERS if not r.lower)
_UNCASED = tuple(r for r in _PROVIDERS if r.lower)
_CASED_TRIGGER = re.compile("|".join(re.escape(t) for r in _CASED for t in r.triggers))

# A key that names a secret: in .env and shell `export`, YAML, JSON, TOML, code assignments.
# Found by its keyword first (a plain alternation, which SQLite-sized texts scan quickly), then
# widened to the whole key and matched against what follows it.
_KEYWORDS = ("secret", "token", "passw", "pwd", "api_key", "apikey", "api-key", "access_key")
_KEYWORD = re.compile(
    r"(?i)secret|token|passw|pwd|api[_\-]?key|access[_\-]?key|private[_\-]?key|credential"
)
_KEYWORD_LOWER = re.compile(_KEYWORD.pattern.removeprefix("(?i)"))
_KEY_CHARS = frozenset(string.ascii_letters + string.digits + "_.-")
_ASSIGN = re.compile(
    r"""["']?[ \t]*(?P<sep>:=|=>|=|:)[ \t]*"""
    r"""(?:"(?P<dq>[^"\n]{4,300})"|'(?P<sq>[^'\n]{4,300})'"""
    r"""|(?P<bare>[^\s"'`,;#(){}\[\]<>]{6,300})(?![(\[]))"""
)
_LINE_END = re.compile(r"[ \t]*(?:[\r\n,}]|$)")
# Keys that hold something about a secret, not the secret (`password_hint`, `max_tokens`).
_NOT_SECRET_KEY = re.compile(
    r"(?i)(hint|length|_len|min|max|policy|field|label|prompt|type|count|limit|expir|ttl|url|"
    r"uri|endpoint|path|file|name|usage|used|budget|size|format|header|regex|pattern|reset|"
    r"required|strength|valid|input|tokens|tokenizer|_id$|_env$|_var$)"
)
_PLACEHOLDER = re.compile(
    r"(?i)^(?:\$.*|%\(.*|\{\{.*|<.*|\*+|x+|\.+|null|none|nil|true|false|undefined|string|str|"
    r"required|optional|redacted|changeme_?|your[_\- ].*|example.*|dummy.*|\.\.\..*)$"
)
# A bare value that is code, not a literal: `settings.SECRET_KEY`, `process.env.TOKEN`.
_REFERENCE = re.compile(
    r"[A-Za-z_][A-Za-z0-9_]*(?:\.[A-Za-z_][A-Za-z0-9_]*)+|[A-Za-z_][A-Za-z_\-]*"
)

# A long random-looking token on its own: mixed case and digits, high Shannon entropy. Hex
# (git SHAs, digests), UUIDs and padded base64 (`+`, `/`, `=`: fixtures, data) never match.
_TOKEN = re.compile(r"(?<![A-Za-z0-9_\-+/=])[A-Za-z0-9_\-]{32,200}(?![A-Za-z0-9_\-+/=])")
# Most texts have no run of 32 token characters: found in their UTF-8 bytes with each token
# character mapped to "a" (a table lookup a byte), that costs a fifth of the regex's scan.
_SHAPE = bytes(ord("a") if chr(b) in _TOKEN_CHARS else ord(" ") for b in range(256))
_RUN = b"a" * 32
_ENTROPY = 4.5


def _entropy(s: str) -> float:
    n = len(s)
    return -sum(c / n * math.log2(c / n) for c in Counter(s).values())


def _random_looking(s: str) -> bool:
    if sum(c.isdigit() for c in s) < 2 or sum(c.isupper() for c in s) < 2:
        return False
    if sum(c.islower() for c in s) < 2 or MARKER.search(s):
        return False
    return _entropy(s.replace("-", "").replace("_", "")) >= _ENTROPY


@dataclass(slots=True)
class Masker:
    """Masks secrets in texts; picklable, so a reader process masks what it parses."""

    key: bytes = b""
    enabled: bool = True
    allow_exact: frozenset[str] = frozenset()
    allow_patterns: tuple[re.Pattern[str], ...] = ()
    counts: Counter[str] = field(default_factory=Counter)  # masked this run, by kind

    @classmethod
    def load(cls, data_dir: Path, config_dir: Path, enabled: bool = True) -> Masker:
        """The masker of a data dir: its key (made on first use, 0600) and the allowlist."""
        if not enabled:
            return cls(enabled=False)
        exact, patterns = read_allowlist(config_dir / ALLOW_FILE)
        return cls(secret_key(data_dir / KEY_FILE), True, exact, patterns)

    def marker(self, kind: str, value: str) -> str:
        digest = hmac.new(self.key, value.encode("utf-8", "surrogatepass"), hashlib.sha256)
        return f"{OPEN}secret:{kind}:{digest.hexdigest()[:_HASH_CHARS]}{CLOSE}"

    def mask(self, text: str) -> str:
        """`text` with every secret replaced by its marker (the same text when none)."""
        if not self.enabled or len(text) < 8:
            return text
        if _CASED_TRIGGER.search(text):
            for rule in _CASED:
                if any(t in text for t in rule.triggers):
                    text = rule.regex.sub(self._replacer(rule.kind, rule.group), text)
        lowered = text.lower()
        for rule in _UNCASED:
            if any(t in lowered for t in rule.triggers):
                text = rule.regex.sub(self._replacer(rule.kind, rule.group), text)
                lowered = text.lower()
        if any(k in lowered for k in _KEYWORDS):
            text = self._mask_keywords(text, lowered)
        if len(text) < 32 or _RUN not in text.encode("utf-8", "surrogatepass").translate(_SHAPE):
            return text
        return _TOKEN.sub(self._token, text)

    def mask_tool_name(self, name: str) -> str:
        """A tool's name: an MCP tool's (`mcp__server__tool`) holds names people chose, so
        each part between the `__` is masked as a text of its own."""
        return "__".join(self.mask(part) for part in name.split("__"))

    def allowed(self, value: str) -> bool:
        return value in self.allow_exact or any(p.fullmatch(value) for p in self.allow_patterns)

    def _replace(self, kind: str, value: str) -> str | None:
        if OPEN in value or CLOSE in value or self.allowed(value):
            return None
        self.counts[kind] += 1
        return self.marker(kind, value)

    def _replacer(self, kind: str, group: int) -> Callable[[re.Match[str]], str]:
        def replace(m: re.Match[str]) -> str:
            whole = m.group(0)
            if group == 0 and m.start() > 0 and m.string[m.start() - 1] in _TOKEN_CHARS:
                return whole  # the middle of a longer token
            new = self._replace(kind, m.group(group))
            if new is None:
                return whole
            start, end = m.start(group) - m.start(), m.end(group) - m.start()
            return whole[:start] + new + whole[end:]

        return replace

    def _mask_keywords(self, text: str, lowered: str) -> str:
        out: list[str] = []
        done = 0
        # The lowercased copy is searched when it lines up with the text (a few characters,
        # such as U+0130, lowercase to two).
        hits = (
            _KEYWORD_LOWER.finditer(lowered)
            if len(lowered) == len(text)
            else _KEYWORD.finditer(text)
        )
        for hit in hits:
            if hit.start() < done:
                continue
            start, end = hit.start(), hit.end()
            while start > 0 and text[start - 1] in _KEY_CHARS:
                start -= 1
            while end < len(text) and text[end] in _KEY_CHARS:
                end += 1
            m = _ASSIGN.match(text, end)
            if m is None:
                continue
            group = "dq" if m.group("dq") is not None else "sq" if m.group("sq") else "bare"
            if group == "bare" and m.group("sep") == ":" and not _LINE_END.match(text, m.end()):
                continue  # `github_token: GitHub Actions step 3`: prose, not a YAML value
            code = group == "bare" and m.group("sep") != ":"  # YAML's `key: value` is a value
            if not _secret_value(text[start:end], m.group(group), code):
                continue
            new = self._replace(_keyword_kind(text[start:end]), m.group(group))
            if new is None:
                continue
            out += (text[done : m.start(group)], new)
            done = m.end(group)
        if not out:
            return text
        out.append(text[done:])
        return "".join(out)

    def _token(self, m: re.Match[str]) -> str:
        value = m.group(0)
        if not _random_looking(value):
            return value
        return self._replace("high-entropy", value) or value


def _secret_value(key: str, value: str, code: bool) -> bool:
    """Whether `key`'s `value` is a secret, not a description of one or a reference to one
    (`code`: an unquoted value after `=`, which may be a variable)."""
    if _NOT_SECRET_KEY.search(key) or _PLACEHOLDER.match(value.strip()) or value.isdigit():
        return False
    if code and not key.isupper() and _REFERENCE.fullmatch(value):
        return False  # `token = token_from_header`, `key=settings.API_KEY`: code, not a value
    return not (code and _REFERENCE.fullmatch(value) and "." in value)


def _keyword_kind(key: str) -> str:
    k = key.lower()
    if "passw" in k or "pwd" in k:
        return "password"
    if "token" in k:
        return "token"
    if "secret" in k:
        return "secret"
    return "api-key"


def count_markers(texts: Iterable[str]) -> Counter[str]:
    """How many markers of each kind the texts hold."""
    counts: Counter[str] = Counter()
    for text in texts:
        counts.update(m.group(1) for m in MARKER.finditer(text))
    return counts


def read_allowlist(path: Path) -> tuple[frozenset[str], tuple[re.Pattern[str], ...]]:
    """`secrets-allow.txt`: one entry a line, `re:PATTERN` a regex the whole value must
    match, any other line an exact string; blank lines and `#` comments are skipped. A regex
    that does not compile is skipped too (logged by the caller's doctor)."""
    try:
        lines = path.read_text(encoding="utf-8").splitlines()
    except (FileNotFoundError, NotADirectoryError, UnicodeDecodeError):
        return frozenset(), ()
    exact: set[str] = set()
    patterns: list[re.Pattern[str]] = []
    for raw in lines:
        line = raw.strip()
        if not line or line.startswith("#"):
            continue
        if line.startswith("re:"):
            try:
                patterns.append(re.compile(line[3:]))
            except re.error:
                continue
        else:
            exact.add(line)
    return frozenset(exact), tuple(patterns)


def mask_store(conn: sqlite3.Connection, masker: Masker, meter: Meter) -> tuple[int, int]:
    """Mask every stored text in place (an archive made before masking): messages, titles,
    pending titles, notes (and their links), signals, inferences and their evidence, error
    signatures. Freed bytes are zeroed (`secure_delete`); a changed message or note gets a
    new `seq`, so its indexes would follow (the caller rebuilds them: old index files hold the
    secret, and `REBUILD` in meta says so). Returns the messages and the notes changed."""
    conn.execute("PRAGMA secure_delete = ON")
    (total,) = conn.execute("SELECT coalesce(max(id), 0) FROM messages").fetchone()
    changed = 0
    start = 0
    while start < total:
        conn.execute("BEGIN IMMEDIATE")
        try:
            rows = conn.execute(
                "SELECT id, text, thinking, tool_calls, tool_output FROM messages "
                "WHERE id > ? AND id <= ?",
                (start, start + _MASK_BATCH),
            ).fetchall()
            updates = []
            for mid, text, thinking, calls, output in rows:
                new = (masker.mask(text), masker.mask(thinking), _mask_calls(masker, calls))
                new_output = masker.mask(output)
                if new != (text, thinking, calls) or new_output != output:
                    updates.append((*new, new_output, mid))
            if updates:
                seq = db.store_seq(conn)
                conn.executemany(
                    "UPDATE messages SET text = ?, thinking = ?, tool_calls = ?, tool_output = ?,"
                    " seq = ? WHERE id = ?",
                    [(*u[:4], seq + n + 1, u[4]) for n, u in enumerate(updates)],
                )
                conn.execute(
                    "UPDATE meta SET value = ? WHERE key = 'seq'", (str(seq + len(updates)),)
                )
                _rebuild_after(conn)
            conn.execute("COMMIT")
        except BaseException:
            conn.execute("ROLLBACK")
            raise
        changed += len(updates)
        start += _MASK_BATCH
        meter(min(start, total), total, f"{changed:,} messages held secrets")
    conn.execute("BEGIN IMMEDIATE")
    try:
        # Before they were digests, checkpoints kept the last bytes read of each transcript.
        conn.execute("UPDATE files SET tail = NULL WHERE substr(tail, 1, 2) != x'0068'")
        for table, key, columns in _TEXTS:
            if _has_table(conn, table):
                _mask_table(conn, masker, table, key, columns)
        notes = _mask_notes(conn, masker) if _has_table(conn, "notes") else 0
        if notes:
            _rebuild_after(conn)
        conn.execute("COMMIT")
    except BaseException:
        conn.execute("ROLLBACK")
        raise
    return changed, notes


REBUILD = "mask_rebuild"  # meta: texts changed, the indexes (which hold the old ones) are not


def _rebuild_after(conn: sqlite3.Connection) -> None:
    """Note, with the change, that the indexes must be rebuilt: a crash before the rebuild
    leaves the flag, so the next start rebuilds them even though it masks nothing new."""
    conn.execute(f"INSERT OR REPLACE INTO meta VALUES ('{REBUILD}', '1')")


# The other texts a store kept before masking: (table, its key columns, its text columns).
_TEXTS: tuple[tuple[str, tuple[str, ...], tuple[str, ...]], ...] = (
    ("sessions", ("id",), ("summary_title", "custom_title", "first_prompt", "git_branch")),
    ("pending_titles", ("leaf_uuid",), ("title",)),
    ("note_links", ("source_id", "position"), ("target", "shown")),
    ("note_tags", ("note_id", "tag_key"), ("tag",)),
    ("signals", ("id",), ("title", "detail")),
    ("inferences", ("id",), ("title", "summary")),
    ("inference_evidence", ("inference_id", "kind", "ref"), ("title", "text")),
    ("error_sightings", ("signature", "message_id"), ("signature",)),
)


def _has_table(conn: sqlite3.Connection, table: str) -> bool:
    found = conn.execute("SELECT 1 FROM sqlite_master WHERE type = 'table' AND name = ?", (table,))
    return found.fetchone() is not None


def _mask_table(
    conn: sqlite3.Connection,
    masker: Masker,
    table: str,
    key: tuple[str, ...],
    columns: tuple[str, ...],
) -> None:
    """Mask `columns` of every row; keys derived from a masked text follow it (a link's
    target, a tag, an evidence's hash, an error signature that is its own key)."""
    names = list(dict.fromkeys((*key, *columns)))
    for row in conn.execute(f"SELECT {', '.join(names)} FROM {table}").fetchall():
        old = dict(zip(names, row, strict=True))
        new = {c: None if old[c] is None else masker.mask(old[c]) for c in columns}
        if all(new[c] == old[c] for c in columns):
            continue
        if table == "note_links":
            new["target_key"] = notes.key(new["target"])
        elif table == "note_tags":
            new["tag_key"] = new["tag"].casefold()
        elif table == "inference_evidence":
            new["hash"] = signals.text_hash(new["text"])
        where = " AND ".join(f"{k} = ?" for k in key)
        sets = ", ".join(f"{c} = ?" for c in new)
        # OR REPLACE: a masked key may now equal another row's (two sightings of one error).
        conn.execute(
            f"UPDATE OR REPLACE {table} SET {sets} WHERE {where}",
            (*new.values(), *(old[k] for k in key)),
        )


def _mask_notes(conn: sqlite3.Connection, masker: Masker) -> int:
    """Mask notes' titles, bodies, folders and tags; a changed note gets the next note
    sequence number (`note_tags` is masked with the other tables)."""
    changed = 0
    rows = conn.execute("SELECT id, title, body, folder, tags FROM notes").fetchall()
    for note_id, title, body, folder, tags in rows:
        old = (title, body, folder, tags)
        # the tags column is written as store/notes.py writes it
        new = (
            masker.mask(title),
            masker.mask(body),
            masker.mask(folder),
            json.dumps([masker.mask(t) for t in json.loads(tags)]),
        )
        if new == old:
            continue
        conn.execute(
            "UPDATE notes SET title = ?, title_key = ?, body = ?, folder = ?, tags = ?, seq = ? "
            "WHERE id = ?",
            (new[0], notes.key(new[0]), *new[1:], notes.next_seq(conn), note_id),
        )
        changed += 1
    return changed


def _mask_calls(masker: Masker, calls: str) -> str:
    if calls == "[]":
        return calls
    parsed = orjson.loads(calls)
    masked = [[masker.mask_tool_name(name), masker.mask(arg)] for name, arg in parsed]
    return calls if masked == parsed else orjson.dumps(masked).decode()
