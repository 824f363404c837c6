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

import base64
import binascii
import hashlib
import hmac
import math
import re
import string
from collections import Counter
from collections.abc import Callable, Iterable
from dataclasses import dataclass, field
from pathlib import Path

from memtui.config import secret_key
from memtui.store.markers import CLOSE, MARKER, OPEN

KEY_FILE = "mask.key"
ALLOW_FILE = "secrets-allow.txt"
_HASH_CHARS = 8


@dataclass(frozen=True, slots=True)
class _Rule:
    """A kind of secret: the regex runs only when one of `triggers` is in the text (or, with
    `lower`, in the lowercased text); `group` is the part of the match that is the secret, and
    `valid`, when given, has the last word on it."""

    kind: str
    triggers: tuple[str, ...]
    regex: re.Pattern[str]
    group: int = 0
    lower: bool = False
    valid: Callable[[str], bool] | None = None


_TOKEN_CHARS = frozenset(string.ascii_letters + string.digits + "_-")
_E = r"(?![A-Za-z0-9_\-])"  # a token ends here (where one starts is checked on a match: a
# pattern that opens with a literal is found by a fast scan, one behind a lookbehind is not)

# A command-line argument's value, after an optional quote: inside the quotes, or up to a space
# (or a backquote: unquoted, the shell would run what follows; in prose it closes `code`).
_ARG = r"((?<=\")[^\"\n]{1,200}(?=\")|(?<=')[^'\n]{1,200}(?=')|(?<!['\"])[^\s'\"`]{1,200})"
# Where a value starts, it is not a shell variable, a substitution or a placeholder.
_VALUE = r"(?![$<{%*…])"
# The value of a command's option (not the next option).
_OPT = r"['\"]?(?!-)" + _VALUE + _ARG
# The rest of a command line, from a command's name to one of its options.
_SAME_COMMAND = r"[^\n|;&]{0,300}?[ \t]"

_PLACEHOLDER = re.compile(
    r"(?i)^(?:\$.*|%\(.*|\{\{.*|<.*|\*+|x+|\.+|null|none|nil|true|false|undefined|string|str|"
    r"required|optional|redacted|changeme_?|your[_\- ].*|example.*|dummy.*|\.\.\..*|….*)$"
)


def _not_placeholder(value: str) -> bool:
    return not _PLACEHOLDER.match(value)


def _not_a_word(value: str) -> bool:
    """A value after prose (`the password is …`) is a password unless it reads as a word:
    `the password is wrong`, `… is stored in the vault`."""
    return not (value.isalpha() and value.islower()) and _not_placeholder(value)


def _mixed(value: str) -> bool:
    """Upper and lower case and a digit: an OpenAI key's body (`sk-learn_pipeline_v2` has no
    capital)."""
    return (
        any(c.isupper() for c in value)
        and any(c.islower() for c in value)
        and any(c.isdigit() for c in value)
    )


_OPENAI_PREFIX = re.compile(r"^sk-(?:proj-|svcacct-|admin-)?")


def _openai_body(value: str) -> bool:
    return _mixed(_OPENAI_PREFIX.sub("", value))


def _user_and_password(value: str) -> bool:
    """Docker's `auth` is base64 of `user:password`."""
    try:
        return b":" in base64.b64decode(value, validate=True)
    except (binascii.Error, ValueError):
        return False


_PROVIDERS: tuple[_Rule, ...] = (
    _Rule(
        "private-key",
        ("PRIVATE KEY",),
        re.compile(
            r"-----BEGIN (?:[A-Z0-9]+ )*PRIVATE KEY(?: BLOCK)?-----"
            r"(?:[\s\S]*?-----END (?:[A-Z0-9]+ )*PRIVATE KEY(?: BLOCK)?-----|[A-Za-z0-9+/=\s:,\-]*)"
        ),
    ),
    # PuTTY's .ppk: the lines after `Private-Lines: N` are the key (encrypted or not).
    _Rule(
        "private-key",
        ("Private-Lines:",),
        re.compile(
            r"Private-Lines:[ \t]*\d+[ \t]*\r?\n((?:[A-Za-z0-9+/=]+\r?\n)*[A-Za-z0-9+/=]+)"
            r"(?=[ \t]*(?:\r?\n|\Z))"
        ),
        group=1,
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
        re.compile(r"sk-(?!ant-)(?:proj-|svcacct-|admin-)?[A-Za-z0-9_\-]{20,255}" + _E),
        valid=_openai_body,
    ),
    _Rule("google-api-key", ("AIza",), re.compile(r"AIza[0-9A-Za-z_\-]{35}" + _E)),
    _Rule(
        "jwt",
        ("eyJ",),
        re.compile(r"eyJ[A-Za-z0-9_\-]{8,}\.eyJ[A-Za-z0-9_\-]{8,}\.[A-Za-z0-9_\-]{8,}" + _E),
    ),
    _Rule(
        "azure-key",
        ("AccountKey=", "AccessKey="),
        re.compile(r"(?:Account|SharedAccess)Key=([A-Za-z0-9+/]{20,}={0,2})"),
        group=1,
    ),
    _Rule(
        "docker-auth",
        ('"auth"',),
        re.compile(r"\"auth\"[ \t]*:[ \t]*\"([A-Za-z0-9+/]{8,}={0,2})\""),
        group=1,
        valid=_user_and_password,
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
    # Headers that carry a key or a token as they are: `X-API-Key: K`, GitLab's `PRIVATE-TOKEN`.
    _Rule(
        "api-key",
        ("-key", "apikey"),
        re.compile(
            r"(?i)\b(?:x-)?(?:api-?key|functions-key|ocp-apim-subscription-key|goog-api-key)"
            r"[ \t]*:[ \t]*[\"']?([A-Za-z0-9._~+/=\-]{8,}+)(?![(\[])"
        ),
        group=1,
        lower=True,
        valid=_not_placeholder,
    ),
    _Rule(
        "token",
        ("-token",),
        re.compile(
            r"(?i)\b(?:private|job|deploy|x-auth|x-access|x-api|x-gitlab|x-vault)-token"
            r"[ \t]*:[ \t]*[\"']?([A-Za-z0-9._~+/=\-]{8,}+)(?![(\[])"
        ),
        group=1,
        lower=True,
        valid=_not_placeholder,
    ),
    # Passwords on a command line: `--password=P`, `--password P` (a lone lowercase word after
    # a space is taken for prose, "the --password flag"), and the MySQL clients' `-pP`.
    # A shell variable or a placeholder (`$PASS`, `<pw>`) is not a password.
    _Rule(
        "password",
        ("--passw",),
        re.compile(
            r"(?<![\w\-])--passw(?:or)?d(?:=|[ \t]+(?![a-z]+(?![^\s'\"])))"
            r"['\"]?(?!-)" + _VALUE + _ARG
        ),
        group=1,
    ),
    _Rule(
        "password",
        ("mysql", "mariadb"),
        re.compile(
            r"\b(?:mysql|mariadb)[a-z\-]*(?=[ \t])" + _SAME_COMMAND + r"-p['\"]?" + _VALUE + _ARG
        ),
        group=1,
    ),
    # `curl -u user:P` (and `--user`); `-u user` alone makes curl ask.
    _Rule(
        "password",
        ("curl",),
        re.compile(
            r"\bcurl\b" + _SAME_COMMAND + r"(?:-u[ \t]*|--user(?:[ \t]+|=))['\"]?"
            r"[^\s:'\"$]*:" + _VALUE + r"([^\s'\"`]{1,200})"
        ),
        group=1,
        lower=True,
    ),
    _Rule(
        "password",
        ("login",),
        re.compile(
            r"\b(?:docker|podman|nerdctl|buildah|skopeo|oras|helm[ \t]+registry)[ \t]+login\b"
            + _SAME_COMMAND
            + r"-p[ \t]*"
            + _OPT
        ),
        group=1,
        lower=True,
    ),
    _Rule(
        "password",
        ("sshpass",),
        re.compile(r"\bsshpass\b" + _SAME_COMMAND + r"-p[ \t]*" + _OPT),
        group=1,
        lower=True,
    ),
    _Rule(
        "password",
        ("redis-cli",),
        re.compile(r"\bredis-cli\b" + _SAME_COMMAND + r"(?:-a|--pass)[ \t]+" + _OPT),
        group=1,
        lower=True,
    ),
    # openssl's `-k P` (enc) and `-pass pass:P` (`-passin`, `-passout`): `env:` and `file:`
    # name where the password is.
    _Rule(
        "password",
        ("openssl",),
        re.compile(
            r"\bopenssl\b"
            + _SAME_COMMAND
            + r"(?:-k[ \t]+['\"]?|-pass(?:in|out)?[ \t]+['\"]?pass:)"
            + _VALUE
            + _ARG
        ),
        group=1,
        lower=True,
    ),
    # `.netrc`: `machine HOST login USER password P`, on one line or several.
    _Rule(
        "password",
        ("password",),
        re.compile(
            r"\b(?:machine[ \t]+\S+|default)(?:\s+(?:login|account|port)[ \t]+\S+)*"
            r"\s+password[ \t]+" + _VALUE + r"([^\s\"'`]{4,200})"
        ),
        group=1,
        lower=True,
        valid=_not_a_word,
    ),
    # Prose: `the password is P`, `passphrase was P` (the value ends before its punctuation).
    _Rule(
        "password",
        ("password", "passphrase"),
        re.compile(
            r"(?i)\bpass(?:word|phrase)[ \t]+(?:is|was)[ \t]*:?[ \t]*[\"'`]?"
            + _VALUE
            + r"([^\s\"'`]{3,199}[^\s\"'`.,;:!?)\]])"
        ),
        group=1,
        lower=True,
        valid=_not_a_word,
    ),
)

_CASED = tuple(r for r in _PROVIDERS if not r.lower)
_UNCASED = tuple(r for r in _PROVIDERS if r.lower)
_CASED_TRIGGER = re.compile("|".join(re.escape(t) for r in _CASED for t in r.triggers))
# A handful of `in` tests on the lowercased text cost half an alternation's scan.
_UNCASED_TRIGGERS = tuple(dict.fromkeys(t for r in _UNCASED for t in r.triggers))
# A provider's token cut by a line break (a terminal's wrap, a pasted block): its start at the
# end of one line, the rest the whole next line, joined if together they make the token.
_SPLIT = re.compile(
    r"(?<![A-Za-z0-9_\-])((?:gh[pousr]_|github_pat_|gl(?:pat|dt|rt|ptt|cbt|ft|imt|oas|soat)-"
    r"|xox[abposre]-|(?:sk|rk)_(?:live|test)_|sk-|AKIA|ASIA|AIza)[A-Za-z0-9_\-]*)"
    r"\r?\n[ \t]*([A-Za-z0-9_\-]{4,255})(?=[ \t]*(?:\r?\n|\Z))"
)

# A key that names a secret: in .env and shell `export`, YAML, JSON, TOML, code assignments.
# Found by its keyword first (a plain alternation, which SQLite-sized texts scan quickly), then
# widened to the whole key and matched against what follows it.
_KEYWORDS = ("secret", "token", "passw", "pwd", "api_key", "apikey", "api-key", "access_key")
_KEYWORD = re.compile(
    r"(?i)secret|token|passw|pwd|api[_\-]?key|access[_\-]?key|private[_\-]?key|credential"
)
_KEYWORD_LOWER = re.compile(_KEYWORD.pattern.removeprefix("(?i)"))
# Whether any rule of the lowercased text may apply, in as few `in` tests as can tell: none
# that holds another ("pass" stands for passw, passphrase and sshpass). Most texts hold none.
_NEEDLES = (*_UNCASED_TRIGGERS, *_KEYWORDS, "pass")
_LOWER_TRIGGERS = tuple(
    t for t in dict.fromkeys(_NEEDLES) if not any(o != t and o in t for o in _NEEDLES)
)
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
# A bare value that is code, not a literal: `settings.SECRET_KEY`, `process.env.TOKEN`.
_REFERENCE = re.compile(
    r"[A-Za-z_][A-Za-z0-9_]*(?:\.[A-Za-z_][A-Za-z0-9_]*)+|[A-Za-z_][A-Za-z_\-]*"
)

# Long tokens, looked for only in a text whose UTF-8 bytes hold a long run of their characters:
# with each such character mapped to "a" (a table lookup a byte), that costs a fifth of a
# regex's scan, and most texts have none.
_SHAPE = bytes(ord("a") if chr(b) in _TOKEN_CHARS else ord(" ") for b in range(256))
_RUN = b"a" * 32
_B64_CHARS = frozenset(string.ascii_letters + string.digits + "+/")
_B64_SHAPE = bytes(ord("a") if chr(b) in _B64_CHARS else ord(" ") for b in range(256))
_B64_AWS = b"a" * 40

# A long random-looking token on its own: mixed case and digits, high Shannon entropy. Hex
# (git SHAs, digests), UUIDs and padded base64 (`+`, `/`, `=`: fixtures, data) never match.
_TOKEN = re.compile(r"(?<![A-Za-z0-9_\-+/=])[A-Za-z0-9_\-]{32,200}(?![A-Za-z0-9_\-+/=])")
_ENTROPY = 4.5
# An AWS secret access key: 40 characters of base64, a `/` or `+` among them (without, it is
# a long token). A base64 run of exactly 40 is rare otherwise: hashes in base64 are 28, 44 or
# 88 long with their `=`, images far longer, and the last line of a wrapped block (a
# certificate) follows a longer line of base64.
_AWS_SECRET = re.compile(r"(?<![A-Za-z0-9+/=_\-])[A-Za-z0-9+/]{40}(?![A-Za-z0-9+/=_\-])")
_B64_LINE = re.compile(r"[A-Za-z0-9+/]+={0,2}")
# Base64 that may hide a provider's token (`echo ghp_… | base64`): decoded when it is text.
_ENCODED = re.compile(r"(?<![A-Za-z0-9+/=_\-])[A-Za-z0-9+/]{32,600}={0,2}(?![A-Za-z0-9+/=_\-])")
# Twilio: an account SID, and a 32-hex auth token after one (`Client(SID, TOKEN)`) or after
# the words `auth token`.
_TWILIO_SID = re.compile(r"(?<![A-Za-z0-9_\-])AC[0-9a-f]{32}" + _E)
_TWILIO_TOKEN = re.compile(
    r"(?:" + OPEN + r"secret:twilio-sid:[0-9a-f]{8}" + CLOSE + r"|(?i:\bauth[ _\-]?token))"
    r"[\"']?[ \t]*(?:[,:=][ \t]*|is[ \t]+)?[\"']?([0-9a-fA-F]{32})" + _E
)
# A 32-hex key assigned to a name that says key or API (`WEATHER_API = "…"`, `maps_key: …`),
# unless the name says it is a hash (`cache_key`, `etag`, `md5`).
_HEX_KEY = re.compile(
    r"(?i)((?:key|api)[A-Za-z0-9_.\-]*)[\"']?[ \t]*(?::=|=>|=|:)[ \t]*[\"']?([0-9a-f]{32})" + _E
)
_HASH_NAME = re.compile(
    r"(?i)hash|md5|sha|sum|digest|etag|cache|fingerprint|integrity|commit|rev|uuid|guid|trace|"
    r"request|_id"
)


def _entropy(s: str) -> float:
    n = len(s)
    return -sum(c / n * math.log2(c / n) for c in Counter(s).values())


def _random_looking(s: str) -> bool:
    if sum(c.isdigit() for c in s) < 2 or sum(c.isupper() for c in s) < 2:
        return False
    if sum(c.islower() for c in s) < 2 or MARKER.search(s):
        return False
    return _entropy(s.replace("-", "").replace("_", "")) >= _ENTROPY


def _ends_a_block(m: re.Match[str]) -> bool:
    """Whether the match is the last line of wrapped base64 (a certificate, a MIME part): the
    line before it is a longer run of base64."""
    text, start = m.string, m.start()
    if start == 0 or text[start - 1] != "\n":
        return False
    line = text[text.rfind("\n", 0, start - 1) + 1 : start - 1].rstrip("\r")
    return len(line) > len(m.group(0)) and _B64_LINE.fullmatch(line) is not None


def _decoded(value: str) -> str:
    """Base64 as text, or "" when it is not text (an image, a hash, a path's letters)."""
    if value.islower() or value.isupper() or not any(c.isdigit() for c in value):
        return ""  # base64 of text mixes cases and digits; a path or a word does not
    try:
        text = base64.b64decode(value + "=" * (-len(value) % 4)).decode("ascii")
    except (binascii.Error, ValueError):
        return ""
    return text if text.replace("\n", " ").replace("\t", " ").isprintable() else ""


def _provider_secret(text: str) -> tuple[str, str] | None:
    """The kind and value of the first provider's token in `text`."""
    if not text or not _CASED_TRIGGER.search(text):
        return None
    for rule in _CASED:
        if any(t in text for t in rule.triggers):
            for m in rule.regex.finditer(text):
                value = m.group(rule.group)
                start = m.start()
                if rule.group == 0 and start > 0 and text[start - 1] in _TOKEN_CHARS:
                    continue
                if rule.valid is None or rule.valid(value):
                    return rule.kind, value
    return None


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
            if "\n" in text:
                text = _SPLIT.sub(self._join_split, text)
            for rule in _CASED:
                if any(t in text for t in rule.triggers):
                    text = rule.regex.sub(self._replacer(rule.kind, rule.group, rule.valid), text)
        lowered = text.lower()
        if any(t in lowered for t in _LOWER_TRIGGERS):
            text = self._mask_lowered(text, lowered)
        if len(text) < len(_RUN):
            return text
        raw = text.encode("utf-8", "surrogatepass")
        tokens = _RUN in raw.translate(_SHAPE)
        if tokens:
            text = self._long_keys(text)
        # Base64 with none of `+/=` in it is a run of token characters: looked for only then.
        if tokens or "/" in text or "+" in text or "=" in text:
            b64 = raw.translate(_B64_SHAPE)
            if _RUN in b64:
                text = _ENCODED.sub(self._encoded, text)
                if _B64_AWS in b64 and ("/" in text or "+" in text):
                    text = _AWS_SECRET.sub(self._aws_secret, text)
        return _TOKEN.sub(self._token, text) if tokens else text

    def _mask_lowered(self, text: str, lowered: str) -> str:
        """The rules found in the lowercased text: headers, commands, keywords."""
        if any(t in lowered for t in _UNCASED_TRIGGERS):
            masked = text
            for rule in _UNCASED:
                if any(t in lowered for t in rule.triggers):
                    replace = self._replacer(rule.kind, rule.group, rule.valid)
                    masked = rule.regex.sub(replace, masked)
            if masked is not text:
                text, lowered = masked, masked.lower()
        if any(k in lowered for k in _KEYWORDS):
            text = self._mask_keywords(text, lowered)
        return text

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

    def _replacer(
        self, kind: str, group: int = 0, valid: Callable[[str], bool] | None = None
    ) -> Callable[[re.Match[str]], str]:
        def replace(m: re.Match[str]) -> str:
            whole = m.group(0)
            if group == 0 and m.start() > 0 and m.string[m.start() - 1] in _TOKEN_CHARS:
                return whole  # the middle of a longer token
            value, end = m.group(group), m.end(group)
            if end < len(m.string) and m.string[end] == CLOSE:
                return whole  # a marker's hash (the marker of a google-api-key says `api-key:`)
            new = None if valid is not None and not valid(value) else self._replace(kind, value)
            if new is None:
                return whole
            start, end = m.start(group) - m.start(), m.end(group) - m.start()
            return whole[:start] + new + whole[end:]

        return replace

    def _join_split(self, m: re.Match[str]) -> str:
        """A provider's token cut by a line break, if the two parts make one (`_SPLIT`)."""
        head, rest = m.group(1), m.group(2)
        if not (
            any(c.isdigit() for c in rest)
            or (any(c.isupper() for c in rest[1:]) and any(c.islower() for c in rest))
        ):
            return m.group(0)  # a word on the next line (`Done`, `README`), not the token's end
        joined = head + rest
        for rule in _CASED:
            fits = rule.group == 0 and rule.regex.fullmatch(joined)
            if fits and (rule.valid is None or rule.valid(joined)):
                return self._replace(rule.kind, joined) or m.group(0)
        return m.group(0)

    def _long_keys(self, text: str) -> str:
        """Twilio's SIDs and auth tokens, and 32-hex keys by their name (`_HEX_KEY`)."""
        if "AC" in text:
            text = _TWILIO_SID.sub(self._replacer("twilio-sid"), text)
        text = _TWILIO_TOKEN.sub(self._replacer("twilio-token", 1), text)

        def hex_key(m: re.Match[str]) -> str:
            start = m.start(1)
            while start > 0 and text[start - 1] in _KEY_CHARS:
                start -= 1
            if _HASH_NAME.search(text[start : m.end(1)]):
                return m.group(0)
            return self._replacer("api-key", 2)(m)

        return _HEX_KEY.sub(hex_key, text)

    def _encoded(self, m: re.Match[str]) -> str:
        """Base64 that decodes to text holding a provider's token: the token's own marker."""
        value = m.group(0)
        found = _provider_secret(_decoded(value))
        if found is None:
            return value
        return self._replace(*found) or value

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

    def _aws_secret(self, m: re.Match[str]) -> str:
        value = m.group(0)
        if "/" not in value and "+" not in value:
            return value  # a long token, the rule above's
        if _ends_a_block(m) or not _random_looking(value):
            return value
        return self._replace("aws-secret-key", value) or value


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
