"""parse_line on the real transcripts in ../shared/transcripts and on hostile input."""

from __future__ import annotations

import dataclasses
import hashlib
import json
import pickle
from collections import Counter
from pathlib import Path

import pytest
from hypothesis import given
from hypothesis import strategies as st

from memtui.ingest.parser import ARG_READ, key_arg, parse_line
from memtui.ingest.reader import masked, read_file
from memtui.store.mask import Masker
from memtui.store.records import Bad, Kind, Message, Other, Record, Title, ToolCall
from tests import lines
from tests.agents import support

TRANSCRIPTS = Path(__file__).resolve().parents[1].parent / "shared" / "transcripts"
DOV = "-home-USER-projects-spotter-worktrees-spotter-dov"
DOV_SESSION = "4d5611e5-241a-462a-8d15-5122611a9569"
SAMPLE = "-Users-dain-workspace-claude-code-log-sample"
EXPERIMENTS = "-experiments-worktrees"
DOV_MAIN = f"{DOV}/{DOV_SESSION}.jsonl"
SAMPLE_0D3 = f"{SAMPLE}/0d3a8e6f-290f-4105-a327-a2496e5e2a83.jsonl"
EXP_MAIN = f"{EXPERIMENTS}/ef958aa1-0e93-49f0-bb71-150f63befcd1.jsonl"

# Independent counts (jq, see tests/transcript_counts.md).
PROJECT_CLASSES = {"Message": 1735, "Other": 1436, "Title": 33}
EDGE_CLASSES = {"Message": 55, "Other": 8, "Title": 1, "Bad": 3}
PROJECT_KINDS = {
    Kind.ASSISTANT: 1023,
    Kind.TOOL_RESULT: 608,
    Kind.PROMPT: 66,
    Kind.META: 37,
    Kind.COMPACT_SUMMARY: 1,
}
PROJECT_UUIDS = 1733
PROJECT_API_IDS = 556
PROJECT_SESSIONS = 21


@pytest.fixture
def transcripts() -> Path:
    if not TRANSCRIPTS.is_dir():
        pytest.skip(f"no transcripts at {TRANSCRIPTS}")
    return TRANSCRIPTS


def _lines(path: Path) -> list[bytes]:
    # Lines keep their newline, as a reader hands them over; the last one may lack it.
    with path.open("rb") as f:
        return list(f)


def _parse_dir(folder: Path) -> list[Record]:
    return [parse_line(line) for path in sorted(folder.rglob("*.jsonl")) for line in _lines(path)]


def _line(path: Path, needle: str) -> bytes:
    [line] = [line for line in _lines(path) if needle.encode() in line]
    return line


def _message(path: Path, uuid: str) -> Message:
    record = parse_line(_line(path, f'"uuid":"{uuid}"'))
    assert isinstance(record, Message)
    assert record.uuid == uuid
    return record


# --- the real transcripts, counted -------------------------------------------------------


def test_project_lines_parse_to_independently_counted_classes(transcripts: Path) -> None:
    records = _parse_dir(transcripts / "projects")
    assert Counter(type(r).__name__ for r in records) == PROJECT_CLASSES
    messages = [r for r in records if isinstance(r, Message)]
    assert Counter(m.kind for m in messages) == PROJECT_KINDS
    assert len({m.uuid for m in messages}) == PROJECT_UUIDS
    assert len({m.api_id for m in messages if m.kind == Kind.ASSISTANT}) == PROJECT_API_IDS
    assert len({m.session_id for m in messages}) == PROJECT_SESSIONS
    assert all(m.role == "assistant" for m in messages if m.kind == Kind.ASSISTANT)
    assert all(m.role == "user" for m in messages if m.kind != Kind.ASSISTANT)


def test_edge_case_lines_parse_to_independently_counted_classes(transcripts: Path) -> None:
    records = _parse_dir(transcripts / "edge-cases")
    assert Counter(type(r).__name__ for r in records) == EDGE_CLASSES


# --- one API message split over several lines ---------------------------------------------


def test_split_assistant_message_shares_api_id_and_keeps_thinking_apart(
    transcripts: Path,
) -> None:
    path = transcripts / "projects" / DOV_MAIN
    api_id = "msg_01PdWvcjJ6E9BgscDveYt9YV"
    parts = [parse_line(line) for line in _lines(path) if f'"id":"{api_id}"'.encode() in line]
    assert len(parts) == 4
    assert all(isinstance(p, Message) for p in parts)
    assert {p.api_id for p in parts} == {api_id}
    assert {p.kind for p in parts} == {Kind.ASSISTANT}
    assert {p.session_id for p in parts} == {DOV_SESSION}
    text, thought, show, ready = parts
    assert text.text == "\n\n"
    assert thought.thinking == (
        "Let me start by checking the issue details and finding available subtasks."
    )
    assert thought.text == ""
    assert "issue details" not in "".join(p.text for p in parts)
    assert show.tool_calls == [
        ToolCall("Bash", "bd show spotter-dov", "toolu_01UwLnYYWGBvukzh1QE6JpfM")
    ]
    assert ready.tool_calls == [ToolCall("Bash", "bd ready", "toolu_01EqSqHoE2fyTCuK5BJ3azkA")]


# --- prompts, tool results, meta and compact summaries ------------------------------------

KIND_CASES = [
    (DOV_MAIN, "daa5a4bb-530c-4055-b20c-bde38255c99e", Kind.PROMPT),
    (DOV_MAIN, "e49c8775-5beb-4fd7-aeb3-2016ccb1e57b", Kind.TOOL_RESULT),
    (DOV_MAIN, "e95c1e9a-5084-4e69-bf3d-42c8d45f3985", Kind.COMPACT_SUMMARY),
    (SAMPLE_0D3, "faa89ae6-1b21-4d05-b6fb-31c904bcb21c", Kind.META),  # isMeta caveat
    (SAMPLE_0D3, "f714a687-f20e-481e-936b-3d7a92fbae31", Kind.PROMPT),  # /doctor
    (SAMPLE_0D3, "a08dbf47-ceb1-4138-b09a-15f576523b21", Kind.META),  # local-command-stdout
    (SAMPLE_0D3, "eb40ba61-4d7e-429b-a786-5a45446b7f61", Kind.META),  # interrupted
    (SAMPLE_0D3, "e06da9c3-8cfb-44d1-a637-568f0477c420", Kind.PROMPT),  # image + text
    (EXP_MAIN, "b2ad0fde-4454-493e-8aed-0d5c4ae4be01", Kind.META),
    (EXP_MAIN, "8b5a6508-dc77-49c6-a13d-239d5a7c69b1", Kind.PROMPT),  # /exit
    (EXP_MAIN, "8ce37950-bcf0-4605-a4f3-e49a2accf726", Kind.META),
]


@pytest.mark.parametrize(("relpath", "uuid", "kind"), KIND_CASES)
def test_user_lines_are_told_apart(transcripts: Path, relpath: str, uuid: str, kind: Kind) -> None:
    message = _message(transcripts / "projects" / relpath, uuid)
    assert message.kind == kind
    assert message.role == "user"


def test_prompt_keeps_text_and_context(transcripts: Path) -> None:
    message = _message(
        transcripts / "projects" / DOV_MAIN,
        "daa5a4bb-530c-4055-b20c-bde38255c99e",
    )
    assert message.text.startswith("Work on bead spotter-dov.")
    assert message.session_id == DOV_SESSION
    assert message.cwd == "/home/USER/projects/spotter-worktrees/spotter-dov"
    assert message.timestamp is not None and message.timestamp.startswith("20")
    assert message.is_sidechain is False
    assert message.agent_id is None
    assert message.tool_output == ""


def test_image_prompt_marks_the_image(transcripts: Path) -> None:
    path = transcripts / "projects" / SAMPLE_0D3
    message = _message(path, "e06da9c3-8cfb-44d1-a637-568f0477c420")
    assert message.text.startswith("[image]\n\nI think the library is setting it")


def test_slash_command_is_a_prompt_with_its_text(transcripts: Path) -> None:
    path = transcripts / "projects" / SAMPLE_0D3
    message = _message(path, "f714a687-f20e-481e-936b-3d7a92fbae31")
    assert message.text.startswith("<command-name>/doctor</command-name>")


def test_tool_result_text_goes_to_tool_output(transcripts: Path) -> None:
    path = transcripts / "projects" / DOV_MAIN
    message = _message(path, "e49c8775-5beb-4fd7-aeb3-2016ccb1e57b")
    assert message.tool_output.startswith("○ spotter-dov [EPIC]")
    assert message.text == ""


def test_tool_result_text_blocks_are_joined_by_newlines(transcripts: Path) -> None:
    path = transcripts / "projects" / EXP_MAIN
    line = _line(path, '"uuid":"166902e4-a07a-4242-a204-01ac847fec72"')
    [result] = json.loads(line)["message"]["content"]
    expected = "\n".join(block["text"] for block in result["content"])
    message = parse_line(line)
    assert isinstance(message, Message)
    assert message.kind == Kind.TOOL_RESULT
    assert message.tool_output.startswith("Done. Round 1 complete.")
    assert message.tool_output == expected


# --- tool calls ---------------------------------------------------------------------------


@pytest.mark.parametrize(
    ("relpath", "uuid", "call"),
    [
        (
            DOV_MAIN,
            "163aa85e-ffa2-4d73-8531-8b46d91dcdd3",
            ToolCall("Bash", "bd show spotter-dov", "toolu_01UwLnYYWGBvukzh1QE6JpfM"),
        ),
        (
            f"{EXPERIMENTS}/ef958aa1-0e93-49f0-bb71-150f63befcd1/subagents/"
            "agent-a6aa8ad077d9ea083.jsonl",
            "2058c761-ad32-4e58-8066-f5242225956d",
            ToolCall(
                "Read",
                "-experiments/worktrees/.claude/worktrees/agent-ab1e6e14/work/research-beads.md",
                "toolu_011pm2RgUGTUURSWp3gcf2qk",
            ),
        ),
        (
            f"{SAMPLE}/89488521-e2e7-4d97-bc02-38197efdddc8.jsonl",
            "aecd7f9c-bb2d-415f-b5e3-25f73222cb72",
            ToolCall("Grep", "convert_jsonl_to_html", "toolu_01LDnWgqZamuPawP7pzGCC5V"),
        ),
    ],
)
def test_tool_calls_keep_name_and_key_argument(
    transcripts: Path, relpath: str, uuid: str, call: ToolCall
) -> None:
    message = _message(transcripts / "projects" / relpath, uuid)
    assert message.kind == Kind.ASSISTANT
    assert message.tool_calls == [call]


def test_tool_results_keep_the_ids_they_answer_and_whether_they_failed(
    transcripts: Path,
) -> None:
    """What pairs a result with its call, and Claude Code's own word on failure: the work
    index reads both (a failed command in 1.x said so only in is_error)."""
    failed, passed = [], []
    for line in _lines(transcripts / "projects" / DOV_MAIN):
        record = json.loads(line)
        content = record.get("message", {}).get("content")
        blocks = (
            [b for b in content if b.get("type") == "tool_result"]
            if isinstance(content, list)
            else []
        )
        if len(blocks) == 1:
            message = parse_line(line)
            assert isinstance(message, Message) and message.kind == Kind.TOOL_RESULT
            assert message.answers == [blocks[0]["tool_use_id"]]
            assert message.is_error is (blocks[0].get("is_error") is True)
            (failed if message.is_error else passed).append(message.tool_output)
    assert any(out.startswith("Exit code 128\nfatal:") for out in failed)
    assert len(passed) > 100


def test_tool_without_key_argument_gets_compact_json() -> None:
    line = json.dumps(
        {
            "type": "assistant",
            "message": {
                "id": "m1",
                "content": [
                    {"type": "tool_use", "name": "TaskUpdate", "input": {"taskId": "7", "n": 1}},
                    {"type": "tool_use", "name": "Big", "input": {"x": "y" * 500}},
                    {"type": "tool_use", "name": "Long", "input": {"prompt": "p" * 500}},
                    {"type": "tool_use", "name": "Empty", "input": {"command": "", "path": "src"}},
                    {"type": "tool_use", "input": 3},
                    {"type": "redacted_thinking", "data": "xyz"},
                ],
            },
        }
    ).encode()
    message = masked(None, parse_line(line))  # as stored: cut
    assert isinstance(message, Message)
    assert [c.name for c in message.tool_calls] == ["TaskUpdate", "Big", "Long", "Empty", ""]
    assert message.tool_calls[0].arg == '{"taskId":"7","n":1}'
    assert message.tool_calls[1].arg == ('{"x":"' + "y" * 500)[:200]
    assert message.tool_calls[2].arg == "p" * 200
    assert message.tool_calls[3].arg == "src"
    assert message.tool_calls[4].arg == "3"
    assert message.thinking == "" and message.text == ""


def test_a_secret_a_cut_would_split_is_masked_first(tmp_path: Path) -> None:
    data = lines.user("u-1", support.CUT_PROMPT) + b"".join(
        lines.assistant(
            f"a-{n}",
            "m1",
            {"type": "tool_use", "id": f"t{n}", "name": "Bash", "input": {"command": c}},
        )
        for n, c in enumerate(support.CUT_COMMANDS)
    )
    path = tmp_path / "-w" / "s-1.jsonl"
    lines.write(path, data)
    found = support.messages(list(read_file(tmp_path, path, None, Masker(key=b"k" * 32))))
    support.assert_cut_after_masking(found)


@pytest.mark.parametrize("given", ["--resume-all", "-p", "a b", "s\n1", "\x1b[31m", ""])
def test_a_session_id_that_would_be_an_option_is_not_taken(given: str) -> None:
    line = lines.user("u-1", "hello", session=given)
    message = parse_line(line, "4d5611e5-file-name")
    assert isinstance(message, Message)
    assert message.session_id == "4d5611e5-file-name"  # the test failed before the fix
    named = parse_line(line, "-file")  # a file's name is made an id too
    assert isinstance(named, Message) and named.session_id == "_-file"


def test_key_arg_survives_nesting_too_deep_to_encode() -> None:
    deep: list[object] = []
    for _ in range(100_000):
        deep = [deep]
    assert key_arg(deep) == ""


# --- subagents ----------------------------------------------------------------------------


@pytest.mark.parametrize(
    ("relpath", "agent_id", "session_id", "count"),
    [
        (f"{DOV}/{DOV_SESSION}/subagents/agent-a2898e3.jsonl", "a2898e3", DOV_SESSION, 74),
        (
            f"{SAMPLE}/agent-fea317d4.jsonl",
            "fea317d4",
            "b769b1e5-8b11-4acd-b8de-294bbf2ec281",
            2,
        ),
    ],
)
def test_subagent_lines_are_sidechains_with_agent_id(
    transcripts: Path, relpath: str, agent_id: str, session_id: str, count: int
) -> None:
    records = [parse_line(line) for line in _lines(transcripts / "projects" / relpath)]
    messages = [r for r in records if isinstance(r, Message)]
    assert len(messages) == count
    assert all(m.is_sidechain for m in messages)
    assert {m.agent_id for m in messages} == {agent_id}
    assert {m.session_id for m in messages} == {session_id}


def test_main_session_lines_are_not_sidechains(transcripts: Path) -> None:
    path = transcripts / "projects" / DOV_MAIN
    messages = [r for r in map(parse_line, _lines(path)) if isinstance(r, Message)]
    assert len(messages) == 408
    assert not any(m.is_sidechain or m.agent_id for m in messages)


# --- titles and odd lines -----------------------------------------------------------------


def test_summary_lines_become_titles_with_leaf_uuid(transcripts: Path) -> None:
    path = transcripts / "projects" / SAMPLE / "07f2e15c-a38b-454b-9148-60edc06de401.jsonl"
    title = parse_line(_line(path, '"summary":"Automate Release Process'))
    assert title == Title(
        title="Automate Release Process with Justfile Command",
        leaf_uuid="af936c4e-108b-42a6-be4b-8677a96902f3",
    )
    titles = [r for r in _parse_dir(transcripts / "projects") if isinstance(r, Title)]
    assert len(titles) == 33
    assert all(t.leaf_uuid and t.session_id is None for t in titles)


def test_edge_cases_file_line_by_line(transcripts: Path) -> None:
    records = [parse_line(line) for line in _lines(transcripts / "edge-cases/edge_cases.jsonl")]
    assert len(records) == 19
    kinds = [r.kind if isinstance(r, Message) else r for r in records]
    assert kinds[:10] == [
        Kind.PROMPT,
        Kind.ASSISTANT,
        Kind.PROMPT,
        Kind.ASSISTANT,
        Kind.TOOL_RESULT,
        Kind.PROMPT,  # a caveat written without isMeta reads as typed text
        Kind.PROMPT,
        Kind.META,
        Kind.ASSISTANT,
        Kind.PROMPT,  # "contenst": no content at all
    ]
    no_content, special = records[9], records[11]
    assert isinstance(no_content, Message) and no_content.text == ""
    assert isinstance(special, Message) and special.text.startswith("Testing special characters")
    assert records[10] == Other("user")  # message is a string
    assert records[12] == Bad("not an object")
    assert records[13] == Other("")
    assert records[14] == Bad("not an object")
    assert records[15] == Bad("not an object")
    todo = records[16]
    assert isinstance(todo, Message)
    assert todo.tool_calls[0].name == "TodoWrite"
    assert todo.tool_calls[0].arg.startswith('{"todos":["broken_todo",')
    assert len(todo.tool_calls[0].arg) > 200  # cut once masked
    assert len(masked(None, todo).tool_calls[0].arg) == 200
    junk = records[17]
    assert isinstance(junk, Message) and junk.kind == Kind.PROMPT and junk.text == ""
    assert records[18] == Title(
        title=(
            "Tested various edge cases including markdown formatting, long text, tool errors, "
            "system messages, command outputs, special characters and emojis. "
            "All message types render correctly in the transcript viewer."
        ),
        leaf_uuid="edge_011",
    )


def test_other_record_types_keep_their_type(transcripts: Path) -> None:
    records = _parse_dir(transcripts / "projects")
    others = Counter(r.type for r in records if isinstance(r, Other))
    assert others == {
        "progress": 1210,
        "system": 135,
        "attachment": 49,
        "file-history-snapshot": 24,
        "permission-mode": 8,
        "last-prompt": 7,
        "queue-operation": 3,
    }


@pytest.mark.parametrize(
    ("obj", "expected"),
    [
        (
            {"type": "custom-title", "customTitle": "Mine", "sessionId": "s"},
            Title("Mine", None, "s"),
        ),
        ({"type": "ai-title", "aiTitle": "Guess", "sessionId": "s2"}, Title("Guess", None, "s2")),
        ({"type": "custom-title", "customTitle": ""}, Other("custom-title")),
        ({"type": "ai-title", "aiTitle": 5}, Other("ai-title")),
        ({"type": "summary", "summary": "", "leafUuid": "x"}, Other("summary")),
        ({"type": "summary", "summary": "S"}, Title("S")),
        ({"type": 7, "message": {}}, Other("")),
        ({"message": {"content": "hi"}}, Other("")),
        ({"type": "assistant", "message": None}, Other("assistant")),
        ({"type": "system", "subtype": "compact_boundary"}, Other("system")),
    ],
)
def test_titles_and_others(obj: dict[str, object], expected: Record) -> None:
    assert parse_line(json.dumps(obj).encode()) == expected


# --- hostile input ------------------------------------------------------------------------


@pytest.mark.parametrize(
    ("line", "reason"),
    [
        (b"\xff\xfe{}", "not utf-8"),
        (b'{"type":"user","message":{"content":"caf\xc3"}}', "not utf-8"),
        (b"\xed\xa0\x80", "not utf-8"),  # an encoded surrogate
        (b'{"type": "user", "message": {"content": "trunc', "not json"),
        (b"", "not json"),
        (b"\n", "not json"),
        (b"\x00{\x00}", "not json"),
        (b"[" * 100_000, "not json"),
        (b"[1,2]", "not an object"),
        (b'"str"', "not an object"),
        (b"null", "not an object"),
        (b"42\n", "not an object"),
    ],
)
def test_bad_lines(line: bytes, reason: str) -> None:
    assert parse_line(line) == Bad(reason)


CUT = "\ud83d"  # half an emoji: what a tool output cut mid-character leaves in JSON


def _unicode(record: Record) -> bool:
    """Whether every text the record carries is valid Unicode (SQLite and Tantivy take it)."""
    texts = [v for v in dataclasses.astuple(record) if isinstance(v, str)]
    if isinstance(record, Message):
        texts += [t for call in record.tool_calls for t in (call.name, call.arg)]
    try:
        for text in texts:
            text.encode()
    except UnicodeEncodeError:
        return False
    return True


def test_lone_surrogates_in_every_field_become_replacement_characters() -> None:
    line = json.dumps(
        {
            "type": "assistant",
            "uuid": f"u{CUT}1",
            "sessionId": f"s{CUT}1",
            "timestamp": f"2026-11-01T10:00:00Z{CUT}",
            "cwd": f"/home/dev/caf{CUT}",
            "gitBranch": f"fix-{CUT}",
            "agentId": f"a{CUT}",
            "message": {
                "id": f"msg{CUT}",
                "content": [
                    {"type": "text", "text": f"cut emoji {CUT} and a whole one \U0001f600"},
                    {"type": "thinking", "thinking": f"hm {CUT}"},
                    {"type": "tool_use", "name": f"Bash{CUT}", "input": {"command": f"ls {CUT}"}},
                    {"type": "tool_use", "name": "T", "input": {f"k{CUT}": [f"v{CUT}"]}},
                ],
            },
        }
    ).encode()
    assert b"\\ud83d" in line  # json.dumps writes the lone surrogate as an escape
    message = parse_line(line)
    assert isinstance(message, Message) and _unicode(message)
    assert message.text == "cut emoji \ufffd and a whole one \U0001f600"
    assert message.thinking == "hm \ufffd"
    assert (message.uuid, message.session_id, message.api_id) == (
        "u\ufffd1",
        "s\ufffd1",
        "msg\ufffd",
    )
    assert (message.cwd, message.git_branch, message.agent_id) == (
        "/home/dev/caf\ufffd",
        "fix-\ufffd",
        "a\ufffd",
    )
    assert message.tool_calls == [
        ToolCall("Bash\ufffd", "ls \ufffd"),
        ToolCall("T", '{"k\ufffd":["v\ufffd"]}'),
    ]
    result = parse_line(
        json.dumps(
            {
                "type": "user",
                "uuid": "u2",
                "message": {"content": [{"type": "tool_result", "content": f"out {CUT}"}]},
            }
        ).encode()
    )
    assert isinstance(result, Message) and result.tool_output == "out \ufffd"
    prompt = parse_line(json.dumps({"type": "user", "message": {"content": f"ask {CUT}"}}).encode())
    assert isinstance(prompt, Message) and (prompt.text, prompt.title) == ("ask \ufffd",) * 2


@pytest.mark.parametrize(
    ("obj", "expected"),
    [
        (
            {"type": "custom-title", "customTitle": f"T{CUT}", "sessionId": f"s{CUT}"},
            Title("T\ufffd", session_id="s\ufffd"),
        ),
        (
            {"type": "summary", "summary": f"S{CUT}", "leafUuid": f"l{CUT}"},
            Title("S\ufffd", leaf_uuid="l\ufffd"),
        ),
        ({"type": "ai-title", "aiTitle": f"{CUT}A"}, Title("\ufffdA")),
        # An escaped backslash before "ud83d" is text, not an escape: kept as written.
        ({"type": "ai-title", "aiTitle": "\\ud83d"}, Title("\\ud83d")),
        # Two halves of one emoji, escaped apart, are the emoji; a low half alone is not.
        (
            {"type": "ai-title", "aiTitle": "\ud83d\ude00 \ude00\ud83d"},
            Title("\U0001f600 \ufffd\ufffd"),
        ),
    ],
)
def test_lone_surrogates_in_titles(obj: dict[str, object], expected: Title) -> None:
    assert parse_line(json.dumps(obj).encode()) == expected


@pytest.mark.parametrize(
    "content", [None, 42, [1, "x", None, {"type": 3}, {"type": "text", "text": 5}]]
)
def test_user_line_with_junk_content_is_an_empty_prompt(content: object) -> None:
    line = json.dumps({"type": "user", "uuid": "u1", "message": {"content": content}}).encode()
    message = parse_line(line)
    assert isinstance(message, Message)
    assert (message.kind, message.text, message.tool_output) == (Kind.PROMPT, "", "")


def test_tool_result_line_also_keeps_its_text_blocks() -> None:
    content = [
        {"type": "tool_result", "content": "out 1"},
        {"type": "tool_result", "content": [{"type": "image"}, {"type": "text", "text": "out 2"}]},
        {"type": "tool_result", "content": None},
        {"type": "text", "text": "note"},
    ]
    line = json.dumps({"type": "user", "message": {"content": content}}).encode()
    message = parse_line(line)
    assert isinstance(message, Message)
    assert message.kind == Kind.TOOL_RESULT
    assert message.tool_output == "out 1\n[image]\nout 2"
    assert message.text == "note"


def test_meta_and_compact_flags_win_over_content() -> None:
    result = [{"type": "tool_result", "content": "x"}]
    base = {"type": "user", "message": {"content": result}}
    compact = parse_line(json.dumps({**base, "isCompactSummary": True, "isMeta": True}).encode())
    meta = parse_line(json.dumps({**base, "isMeta": True}).encode())
    assert isinstance(compact, Message) and compact.kind == Kind.COMPACT_SUMMARY
    assert isinstance(meta, Message) and meta.kind == Kind.META


def test_local_command_stderr_is_meta() -> None:
    line = json.dumps({"type": "user", "message": {"content": "<local-command-stderr>x"}})
    message = parse_line(line.encode())
    assert isinstance(message, Message) and message.kind == Kind.META


def test_missing_ids_fall_back() -> None:
    body = b'{"type":"user","message":{"content":"hi"}}'
    synthetic = "line-" + hashlib.sha1(body).hexdigest()
    bare = parse_line(body)
    with_newline = parse_line(body + b"\n", fallback_session="from-file")
    assert isinstance(bare, Message) and isinstance(with_newline, Message)
    assert bare.uuid == with_newline.uuid == synthetic
    assert bare.session_id == ""
    assert with_newline.session_id == "from-file"
    own = parse_line(b'{"type":"user","uuid":"u","sessionId":"s","message":{}}', "from-file")
    assert isinstance(own, Message) and (own.uuid, own.session_id) == ("u", "s")


def test_odd_field_types_do_not_leak_into_the_record() -> None:
    obj = {
        "type": "assistant",
        "uuid": 5,
        "sessionId": ["s"],
        "timestamp": 1,
        "cwd": {},
        "gitBranch": None,
        "isSidechain": "yes",
        "agentId": 3,
        "message": {"id": 9, "content": "plain answer"},
    }
    message = parse_line(json.dumps(obj).encode())
    assert isinstance(message, Message)
    assert message.uuid.startswith("line-")
    assert message.session_id == ""
    assert (message.timestamp, message.cwd, message.git_branch, message.agent_id) == (None,) * 4
    assert message.is_sidechain is False
    assert message.api_id is None
    assert message.text == "plain answer"


# --- properties ---------------------------------------------------------------------------

# Text with lone surrogates too: JSON may carry them as escapes (a cut emoji).
CUT_TEXT = st.builds(
    lambda head, cut, tail: head + cut + tail,
    st.text(),
    st.characters(categories=["Cs"]),
    st.text(),
)
TEXT = st.text() | CUT_TEXT
JSON_LEAVES = st.none() | st.booleans() | st.integers() | st.floats() | TEXT
JSON_VALUES = st.recursive(
    JSON_LEAVES,
    lambda children: st.lists(children, max_size=4) | st.dictionaries(TEXT, children, max_size=4),
    max_leaves=20,
)
BLOCK_TYPES = ["text", "image", "thinking", "redacted_thinking", "tool_use", "tool_result"]
BLOCKS = st.fixed_dictionaries(
    {"type": st.sampled_from(BLOCK_TYPES) | JSON_VALUES},
    optional={
        key: JSON_VALUES | st.lists(JSON_VALUES, max_size=3)
        for key in ("text", "thinking", "name", "input", "content")
    },
)
MESSAGES = JSON_VALUES | st.fixed_dictionaries(
    {}, optional={"id": JSON_VALUES, "content": JSON_VALUES | st.lists(BLOCKS | JSON_VALUES)}
)
TYPED_OBJECTS = st.fixed_dictionaries(
    {
        "type": st.sampled_from(["user", "assistant", "summary", "custom-title", "ai-title"]),
        "message": MESSAGES,
    },
    optional={
        key: JSON_VALUES
        for key in (
            "uuid",
            "sessionId",
            "timestamp",
            "cwd",
            "gitBranch",
            "isSidechain",
            "agentId",
            "isMeta",
            "isCompactSummary",
            "summary",
            "leafUuid",
            "customTitle",
            "aiTitle",
        )
    },
)


def _check(record: Record) -> None:
    assert isinstance(record, Message | Title | Other | Bad)
    assert _unicode(record)
    if isinstance(record, Message):
        assert isinstance(record.uuid, str) and record.uuid
        assert isinstance(record.session_id, str)
        assert record.role in ("user", "assistant")
        assert isinstance(record.kind, Kind)
        for text in (record.text, record.thinking, record.tool_output):
            assert isinstance(text, str)
        for call in record.tool_calls:
            assert isinstance(call.name, str) and isinstance(call.arg, str)
            assert len(call.arg) <= ARG_READ


@given(st.binary())
def test_any_bytes_give_a_record(line: bytes) -> None:
    _check(parse_line(line))


@given(JSON_VALUES)
def test_any_json_gives_a_record(value: object) -> None:
    _check(parse_line(json.dumps(value).encode()))


@given(TYPED_OBJECTS, st.none() | st.text())
def test_any_typed_object_gives_a_record(obj: dict[str, object], fallback: str | None) -> None:
    _check(parse_line(json.dumps(obj).encode(), fallback))


@given(
    st.sampled_from(["user", "assistant", "summary", "custom-title", "ai-title"]),
    st.lists(CUT_TEXT, min_size=17, max_size=17),
)
def test_a_cut_emoji_in_any_field_is_repaired(kind: str, texts: list[str]) -> None:
    t = iter(texts)
    fields = ("uuid", "sessionId", "timestamp", "cwd", "gitBranch", "agentId", "summary")
    obj: dict[str, object] = {key: next(t) for key in fields}
    obj |= {"type": kind, "leafUuid": next(t), "customTitle": next(t), "aiTitle": next(t)}
    blocks = [
        {"type": "text", "text": next(t)},
        {"type": "thinking", "thinking": next(t)},
        {"type": "tool_use", "name": next(t), "input": {next(t): next(t)}},
        {"type": "tool_result", "content": next(t)},
    ]
    obj["message"] = {"id": next(t), "content": blocks}
    record = parse_line(json.dumps(obj).encode())
    assert isinstance(record, Message | Title) and _unicode(record)


def test_message_survives_pickling_with_every_field() -> None:
    """The reader process sends records by pickle; its __reduce__ must name every field."""
    values = {f.name: f"{f.name}-value" for f in dataclasses.fields(Message) if f.type == "str"}
    message = Message(
        **values,
        kind=Kind.TOOL_RESULT,
        timestamp="2026-01-02T03:04:05Z",
        cwd="/work",
        git_branch="main",
        api_id="msg_1",
        is_sidechain=True,
        agent_id="a1",
        tool_calls=[ToolCall("Bash", "ls", "toolu_1")],
        epoch=1767323045,
        answers=["toolu_0"],
        is_error=False,
    )
    assert len({str(getattr(message, f.name)) for f in dataclasses.fields(Message)}) == len(
        dataclasses.fields(Message)
    )
    assert pickle.loads(pickle.dumps(message)) == message


def test_epoch_comes_from_the_timestamp() -> None:
    line = json.dumps(
        {
            "type": "user",
            "uuid": "u1",
            "sessionId": "s1",
            "timestamp": "2026-01-02T03:04:05.123Z",
            "message": {"role": "user", "content": "hi"},
        }
    ).encode()
    record = parse_line(line)
    assert isinstance(record, Message) and record.epoch == 1767323045
    broken = parse_line(line.replace(b"2026-01-02", b"yesterday"))
    assert isinstance(broken, Message) and broken.epoch == 0
