"""What an error is in a conversation's text, and the one way it is normalised.

An error's signature is its name and message with what makes one error look like many
(paths, quoted names, numbers, hashes) replaced by placeholders: `KeyError: <name>`,
`FAILED <path>::test_x`, `E0502`. recurring_error counts sightings by it and the work index
(what a session ran, which failed, what fixed it) keys a failed command's error by it.
Plain `re`: a hook imports this without the engine's heavy parts.
"""

from __future__ import annotations

import re

# An error counts where it was raised or reported: an error line in what a command printed or
# in what the person or the assistant said, never a mention in code (`except ValueError:`,
# `raise KeyError(`).
_NAME = r"(?:[A-Za-z_]\w*\.)*([A-Z][A-Za-z]*(?:Error|Exception)):[ \t]*([^\n]*)$"
# In a command's output: the name (maybe dotted) at the line's start, or after pytest's `E`,
# an `Uncaught`, or a log line's level. Indented, it is code or a docstring's `Raises:`.
_ERROR_LINE = re.compile(
    r"^(?:E[ \t]+|Uncaught[ \t]+|[^\n]*?\b(?:ERROR|CRITICAL|FATAL)\b[^\n]*?[ \t\]:])?" + _NAME,
    re.M,
)
# In words (the person's, the assistant's telling what happened): anywhere in a line but one
# of code (indented, or after a keyword).
_ERROR_SAID = re.compile(r"(?<![\w.])" + _NAME, re.M)
_CODE_BEFORE = re.compile(r"^[ \t]+$|\b(?:except|raises?|class|catch(?:es)?|throws?|def)\b", re.M)
# A message that ends like code does not report an error: `ValueError: 400,` in a dict.
_CODE_ENDS = (",", "{", "(", "[", "\\")
# A traceback's last line may be the bare name (`raise ValueError`).
_TRACEBACK = re.compile(r"^Traceback \(most recent call last\):$", re.M)
_BARE = re.compile(r"(?:[A-Za-z_]\w*\.)*([A-Z][A-Za-z]*(?:Error|Exception))")
# Tool-specific reports, distinctive anywhere on a line.
_REPORTS = [
    re.compile(r"\bFAILED[ \t]+(\S+::\S+)"),
    re.compile(r"\berror\[(E\d{4})\]"),
    re.compile(r"\berror (TS\d{4})\b"),
    re.compile(r"\b(ERR_[A-Z0-9_]{3,})\b"),
    re.compile(r"npm ERR! code (\S+)"),
]
# Read's (`   12→`) and `cat -n`'s (`    12\t`) line numbers: an output that is mostly such
# lines is a file shown, whichever tool showed it.
_NUMBERED = re.compile(r"^[ \t]*\d+(?:→|\t)", re.M)
# What makes one error look like many: paths, quoted names, numbers, hashes and ids.
_NORMALISE = [
    (re.compile(r"(?:[A-Za-z]:)?(?:[\w.\-~]*/)+[\w.\-]+"), "<path>"),
    (re.compile(r"'[^']*'|\"[^\"]*\"|`[^`]*`"), "<name>"),
    (re.compile(r"\b0x[0-9a-fA-F]+\b|\b[0-9a-f]{7,}\b"), "<id>"),
    (re.compile(r"\b\d+(?:\.\d+)*\b"), "<n>"),
    (re.compile(r"\s+"), " "),
]
_SENTENCE_END = re.compile(r"[.?!](?=\s|$)")
# Errors whose message is the value alone (Python prints a KeyError's key): what follows it
# on the line is someone's words about it.
_VALUE_ONLY = {"KeyError"}
_VALUE = re.compile(r"'[^']*'|\"[^\"]*\"|\S+")
MAX_SIGNATURES = 4  # per message: a log dump holds dozens, and the first few say enough
SIGNATURE_REST = 80  # characters of what follows an error's name in its signature


def _trim(rest: str) -> str:
    """The punctuation around `rest` gone, but for a bracket whose partner it keeps:
    `[Errno <n>] No space left`, `failed (exit <n>)`."""
    while True:
        trimmed = rest.strip(" .,:;")
        for opener, closer in ("()", "[]"):
            if trimmed.startswith(opener) and closer not in trimmed:
                trimmed = trimmed[1:]
            if trimmed.endswith(closer) and opener not in trimmed:
                trimmed = trimmed[:-1]
        if trimmed == rest:
            return rest
        rest = trimmed


def _signature(name: str, rest: str) -> str:
    if name in _VALUE_ONLY and (value := _VALUE.match(rest.strip())):
        rest = value.group(0)  # "KeyError: 'x' without the fix": the words are about it
    rest = _normalised(rest)
    return f"{name}: {rest}" if rest else name


def _normalised(text: str) -> str:
    text = _SENTENCE_END.split(text[:160], maxsplit=1)[0]  # what follows is words about it
    for rx, sub in _NORMALISE:
        text = rx.sub(sub, text)
    return _trim(text)[:SIGNATURE_REST]


def _reported(text: str, said: bool = False) -> list[tuple[str, int]]:
    """The errors a text reports (`said`: in words, not a command's output), in
    the order it reports them: (signature, offset of the line reporting it)."""
    found: list[tuple[int, str]] = []
    for m in (_ERROR_SAID if said else _ERROR_LINE).finditer(text):
        rest = m.group(2).rstrip()
        line = text.rfind("\n", 0, m.start()) + 1
        if said and _CODE_BEFORE.search(text, line, m.start()):
            continue
        if not rest.endswith(_CODE_ENDS):
            found.append((line, _signature(m.group(1), rest)))
    for m in _TRACEBACK.finditer(text):
        at = m.end() + 1
        while at < len(text):
            end = text.find("\n", at)
            end = len(text) if end < 0 else end
            below = text[at:end]
            if below.strip() and not below[0].isspace():
                if bare := _BARE.fullmatch(below.rstrip()):
                    found.append((at, bare.group(1)))
                break
            at = end + 1
    for i, pattern in enumerate(_REPORTS):
        for m in pattern.finditer(text):
            name = m.group(1).rstrip(".,:;)]'\"")  # "ERESOLVE." is ERESOLVE
            if i == 0:
                name = "FAILED " + name.split("[", 1)[0]
            found.append((text.rfind("\n", 0, m.start()) + 1, name))
    out: list[tuple[str, int]] = []
    for at, sig in sorted(found):
        if sig not in (s for s, _ in out):
            out.append((sig, at))
        if len(out) >= MAX_SIGNATURES:
            break
    return out


def signatures(text: str, said: bool = False) -> list[str]:
    """The errors a text reports (`said`: in words, not output), each normalised so that
    paths, numbers and ids do not split one error into many: `KeyError: <name>`,
    `FAILED <path>::test_x`, `E0502`."""
    return [sig for sig, _ in _reported(text, said)]


def error_lines(text: str, kind: str, signature: str = "") -> str | None:
    """The line where a message of `kind` reports an error (the first whose signature starts
    with `signature`, else the first), with the line before and after it; None if it
    reports none."""
    reported = _reported(text, kind != "tool_result")
    if not reported:
        return None
    at = next((a for s, a in reported if s.startswith(signature)), reported[0][1])
    lines = text[:at].split("\n")[-2:-1] + text[at:].split("\n", 2)[:2]
    return "\n".join(" ".join(line.split())[:200] for line in lines if line.strip())


def shows_files(output: str) -> bool:
    """Whether a tool's output is mostly numbered lines of a file."""
    lines = [line for line in output.splitlines() if line.strip()]
    return len(lines) >= 2 and len(_NUMBERED.findall(output)) * 2 >= len(lines)


def error_words(signature: str) -> tuple[str, list[str]]:
    """The error's name and the words of its message (placeholders aside): a note that
    holds the name and most of the words is about this error."""
    name, _, rest = signature.partition(": ")
    words = [w for w in re.findall(r"[A-Za-z]{3,}", re.sub(r"<\w+>", " ", rest))]
    return name.removeprefix("FAILED ").casefold(), [w.casefold() for w in words]


# Claude Code's first line of a command that exited non-zero (2.x; 1.x wrote none).
_EXIT = re.compile(r"\AExit code (\d+)\n?")
# Codex's shell tools' text form: a header of labelled lines, then `Output:` (its JSON form's
# exit code the reader reads); exec_command's header says `Process exited with code N`.
_CODEX_EXIT = re.compile(
    r"\A(?:Exit code: |(?:(?:Chunk ID|Wall time): [^\n]*\n)*Process exited with code )(-?\d+)$",
    re.M,
)
_CODEX_FRAME = re.compile(
    r"\A(?:(?:Exit code:|Wall time:|Total output lines:|Chunk ID:|Original token count:|"
    r"Process exited with code|Process running with session ID) [^\n]*\n)*(?:Output:\n)?"
)
# Gemini CLI's run_shell_command: labelled lines (`Stdout:` and `Stderr:` in older releases,
# `Output:` now) around what the command printed.
_GEMINI_EXIT = re.compile(r"^Exit Code: (-?\d+)$", re.M)
_GEMINI_FRAME = re.compile(
    r"^(?:(?:Command|Directory|Exit Code|Signal|Background PIDs|Process Group PGID): [^\n]*"
    r"|Error: \(none\)|(?:Stdout|Stderr): \(empty\))(?:\n|\Z)|^(?:Output|Stdout|Stderr): ",
    re.M,
)
# Copilot CLI's bash: a mark after what the command printed.
_COPILOT_EXIT = re.compile(r"\n?<exited with exit code (-?\d+)>\s*\Z")
# How each agent's shell tool writes a command's exit code into its result: the code, and what
# the tool wrote around what the command printed (an error is looked for in the latter only).
# OpenCode keeps its exit code beside the output, where the reader does not look.
EXIT_FORMS: dict[str, tuple[re.Pattern[str], re.Pattern[str]]] = {
    "claude-code": (_EXIT, _EXIT),
    "codex": (_CODEX_EXIT, _CODEX_FRAME),
    "gemini": (_GEMINI_EXIT, _GEMINI_FRAME),
    "copilot": (_COPILOT_EXIT, _COPILOT_EXIT),
}
# A line that says what went wrong, for an error none of the patterns above names.
_TELLING = re.compile(
    r"error|fatal|fail|denied|not found|no such|cannot|can't|unable|invalid|refused|missing|"
    r"timed out",
    re.I,
)
LINE_CHARS = 200  # of an error's line as written


def run_output(output: str, agent: str) -> tuple[int | None, str]:
    """A command's exit code, where `agent`'s shell tool wrote one in its result, and what
    the command printed (the tool's own lines around it gone)."""
    form = EXIT_FORMS.get(agent)
    if form is None:
        return None, output
    m = form[0].search(output)
    return (int(m.group(1)) if m else None), form[1].sub("", output)


def error_of(text: str) -> tuple[str, str] | None:
    """What a failed command's output (or an error a person pastes) says went wrong: its key,
    the first signature it reports or else its telling line normalised the same way (so
    `fatal: no upstream branch 'x'` matches itself with another branch), and that line as
    written. None when it says nothing."""
    text = text[m.end() :] if (m := _EXIT.match(text)) else text
    reported = _reported(text)
    if reported:
        line = " ".join(text[reported[0][1] :].split("\n", 1)[0].split())
        return reported[0][0], line[:LINE_CHARS]
    lines = [" ".join(line.split()) for line in text.splitlines() if line.strip()]
    if not lines:
        return None
    line = next((x for x in lines if _TELLING.search(x)), lines[-1])[:LINE_CHARS]
    return _normalised(line) or line[:SIGNATURE_REST], line
