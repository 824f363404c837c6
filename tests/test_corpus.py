import sys
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parents[1] / "bench"))

import json
import re
from collections import Counter
from typing import Any

import corpus
import pytest

MESSAGES = 500
TS_RE = re.compile(r"^\d{4}-\d\d-\d\dT\d\d:\d\d:\d\d\.\d{3}Z$")
REQUIRED = ("cwd", "sessionId", "uuid", "parentUuid", "timestamp", "gitBranch", "version")


@pytest.fixture(scope="module")
def tree(tmp_path_factory: pytest.TempPathFactory) -> tuple[Path, corpus.CorpusStats]:
    root = tmp_path_factory.mktemp("corpus")
    return root, corpus.generate(root, messages=MESSAGES, seed=7)


def read_tree(root: Path) -> tuple[dict[Path, list[dict[str, Any]]], list[bytes]]:
    """Every parseable record per file, and the raw lines that are not JSON objects."""
    records: dict[Path, list[dict[str, Any]]] = {}
    broken: list[bytes] = []
    for path in sorted(root.rglob("*.jsonl")):
        recs = records.setdefault(path, [])
        for raw in path.read_bytes().split(b"\n")[:-1]:
            try:
                rec = json.loads(raw.decode("utf-8"))
            except (UnicodeDecodeError, ValueError):
                broken.append(raw)
                continue
            if isinstance(rec, dict):
                recs.append(rec)
            else:
                broken.append(raw)
    return records, broken


def is_tool_result(rec: dict[str, Any]) -> bool:
    content = rec["message"]["content"]
    return isinstance(content, list) and any(b.get("type") == "tool_result" for b in content)


def is_prompt(rec: dict[str, Any]) -> bool:
    return (
        rec["type"] == "user"
        and not rec.get("isMeta")
        and not rec.get("isCompactSummary")
        and not is_tool_result(rec)
    )


def all_records(root: Path) -> list[dict[str, Any]]:
    records, _ = read_tree(root)
    return [r for recs in records.values() for r in recs]


def tree_bytes(root: Path) -> dict[str, bytes]:
    return {
        str(p.relative_to(root)): p.read_bytes() for p in sorted(root.rglob("*")) if p.is_file()
    }


def test_stats_match_independent_recount(tree: tuple[Path, corpus.CorpusStats]) -> None:
    root, stats = tree
    records, broken = read_tree(root)
    recs = [r for rs in records.values() for r in rs]
    messages = [r for r in recs if r["type"] in ("user", "assistant")]
    n_lines = sum(len(p.read_bytes().split(b"\n")) - 1 for p in records)
    recount = corpus.CorpusStats(
        projects=len({r["cwd"] for r in messages}),
        sessions=len({r["sessionId"] for r in messages}),
        prompts=sum(1 for r in recs if is_prompt(r)),
        assistant=len({r["message"]["id"] for r in recs if r["type"] == "assistant"}),
        tool_results=sum(1 for r in recs if r["type"] == "user" and is_tool_result(r)),
        lines=n_lines,
        broken_lines=len(broken),
        files=len(records),
    )
    assert stats == recount
    assert stats.prompts + stats.assistant == MESSAGES
    assert stats.projects == 8


def test_message_records_have_the_common_fields(tree: tuple[Path, corpus.CorpusStats]) -> None:
    root, _ = tree
    records, _ = read_tree(root)
    for recs in records.values():
        last = ""
        for rec in recs:
            if rec["type"] not in ("user", "assistant"):
                continue
            assert all(key in rec for key in REQUIRED), rec
            assert isinstance(rec["isSidechain"], bool)
            assert TS_RE.match(rec["timestamp"]), rec["timestamp"]
            assert rec["timestamp"] >= last  # increasing within a file
            last = rec["timestamp"]


def test_parent_chain_resolves(tree: tuple[Path, corpus.CorpusStats]) -> None:
    recs = all_records(tree[0])
    uuids = {r["uuid"] for r in recs if "uuid" in r}
    assert len(uuids) == sum(1 for r in recs if "uuid" in r)  # no duplicates
    assert all(r["parentUuid"] in uuids for r in recs if r.get("parentUuid"))
    assert all(r["leafUuid"] in uuids for r in recs if r["type"] == "summary")


def test_all_record_kinds_present(tree: tuple[Path, corpus.CorpusStats]) -> None:
    recs = all_records(tree[0])
    types = Counter(r["type"] for r in recs)
    for kind in (
        "user",
        "assistant",
        "system",
        "progress",
        "file-history-snapshot",
        "queue-operation",
        "permission-mode",
        "last-prompt",
        "summary",
        "custom-title",
    ):
        assert types[kind], kind
    subtypes = {r.get("subtype") for r in recs if r["type"] == "system"}
    assert {None, "compact_boundary", "local_command", "turn_duration"} <= subtypes
    users = [r for r in recs if r["type"] == "user"]
    assert any(isinstance(r["message"]["content"], str) and is_prompt(r) for r in users)
    assert any(isinstance(r["message"]["content"], list) and is_prompt(r) for r in users)
    assert any(r.get("isMeta") for r in users)
    assert any(r.get("isCompactSummary") for r in users)
    assert all("toolUseResult" in r for r in users if is_tool_result(r))
    assert all("sessionId" not in r and r["leafUuid"] for r in recs if r["type"] == "summary")
    blocks = {r["message"]["content"][0]["type"] for r in recs if r["type"] == "assistant"}
    assert {"text", "thinking", "tool_use"} <= blocks


def test_assistant_messages_span_several_lines(tree: tuple[Path, corpus.CorpusStats]) -> None:
    recs = all_records(tree[0])
    per_id = Counter(r["message"]["id"] for r in recs if r["type"] == "assistant")
    assert max(per_id.values()) >= 2
    tools = Counter(
        r["message"]["content"][0]["name"]
        for r in recs
        if r["type"] == "assistant" and r["message"]["content"][0]["type"] == "tool_use"
    )
    assert {"Bash", "Read", "Edit", "Grep"} <= set(tools)


def test_agent_files(tree: tuple[Path, corpus.CorpusStats]) -> None:
    root, _ = tree
    records, _ = read_tree(root)
    nested = [p for p in records if p.parent.name == "subagents"]
    flat = [p for p in records if re.fullmatch(r"agent-[0-9a-f]{8}\.jsonl", p.name)]
    assert nested and flat
    for path in nested:
        assert path.with_name(path.stem + ".meta.json").exists()
        session_id = path.parent.parent.name
        assert (path.parent.parent.parent / f"{session_id}.jsonl").exists()
        msgs = [r for r in records[path] if r["type"] in ("user", "assistant")]
        assert all(r["isSidechain"] and r["sessionId"] == session_id for r in msgs)
        assert all(r["agentId"] == path.stem.removeprefix("agent-") for r in msgs)
    for path in flat:
        msgs = [r for r in records[path] if r["type"] in ("user", "assistant")]
        assert msgs and all(r["isSidechain"] and r["agentId"] for r in msgs)
        assert (path.parent / f"{msgs[0]['sessionId']}.jsonl").exists()


def test_folders_encode_the_cwd(tree: tuple[Path, corpus.CorpusStats]) -> None:
    root, _ = tree
    records, _ = read_tree(root)
    for path, recs in records.items():
        folder = path.relative_to(root).parts[0]
        for rec in recs:
            if "cwd" in rec:
                assert re.sub(r"[^A-Za-z0-9]", "-", rec["cwd"]) == folder


def test_broken_lines_present(tree: tuple[Path, corpus.CorpusStats]) -> None:
    root, stats = tree
    _, broken = read_tree(root)
    assert stats.broken_lines == len(broken) >= 3

    def utf8(raw: bytes) -> bool:
        try:
            raw.decode("utf-8")
        except UnicodeDecodeError:
            return False
        return True

    assert any(not utf8(raw) for raw in broken)
    parsed = []
    for raw in broken:
        if utf8(raw):
            try:
                parsed.append(json.loads(raw))
            except ValueError:
                parsed.append("invalid")
    assert "invalid" in parsed  # truncated JSON
    assert any(p != "invalid" and not isinstance(p, dict) for p in parsed)  # e.g. [1,2]


def test_no_broken_lines_when_disabled(tmp_path: Path) -> None:
    stats = corpus.generate(tmp_path, messages=200, seed=1, broken_lines=False)
    assert stats.broken_lines == 0
    assert not read_tree(tmp_path)[1]


def test_same_seed_same_bytes(tmp_path: Path) -> None:
    a = corpus.generate(tmp_path / "a", messages=300, seed=11)
    b = corpus.generate(tmp_path / "b", messages=300, seed=11, workers=2)
    corpus.generate(tmp_path / "c", messages=300, seed=12)
    assert a == b
    assert tree_bytes(tmp_path / "a") == tree_bytes(tmp_path / "b")
    assert tree_bytes(tmp_path / "a") != tree_bytes(tmp_path / "c")


@pytest.mark.parametrize("messages", [1, 4, 5, 9, 63])
def test_exact_message_count_for_small_sizes(tmp_path: Path, messages: int) -> None:
    stats = corpus.generate(tmp_path, messages=messages, seed=2)
    recs = all_records(tmp_path)
    prompts = sum(1 for r in recs if is_prompt(r))
    assistant = len({r["message"]["id"] for r in recs if r["type"] == "assistant"})
    assert prompts + assistant == stats.prompts + stats.assistant == messages


def test_append_session_lines(tree: tuple[Path, corpus.CorpusStats], tmp_path: Path) -> None:
    src = next(p for p in sorted(tree[0].glob("*/*.jsonl")) if not p.name.startswith("agent-"))
    path = tmp_path / src.name
    path.write_bytes(src.read_bytes())
    old = [r for r in read_tree(tmp_path)[0][path] if "uuid" in r]
    before = path.read_bytes()

    appended = corpus.append_session_lines(path, 9, old[-1]["sessionId"], old[-1]["cwd"], seed=4)

    after = path.read_bytes()
    assert appended == 9
    assert after.startswith(before)
    new = [json.loads(line) for line in after[len(before) :].decode("utf-8").splitlines()]
    assert all(isinstance(r, dict) for r in new)
    prompts = sum(1 for r in new if is_prompt(r))
    assistant = len({r["message"]["id"] for r in new if r["type"] == "assistant"})
    assert prompts + assistant == 9
    chained = [r for r in new if "uuid" in r]
    assert chained[0]["parentUuid"] == old[-1]["uuid"]
    assert chained[0]["timestamp"] > old[-1]["timestamp"]
    for rec in new:
        if rec["type"] in ("user", "assistant"):
            assert rec["sessionId"] == old[-1]["sessionId"]
            assert rec["cwd"] == old[-1]["cwd"]
            assert all(key in rec for key in REQUIRED)


def test_cli_prints_stats(tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    assert corpus.main([str(tmp_path), "--messages", "50", "--seed", "3"]) == 0
    stats = json.loads(capsys.readouterr().out)
    assert stats["prompts"] + stats["assistant"] == 50
