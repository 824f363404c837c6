"""get_context within its budget, its token count against a real tokenizer, and trace."""

from __future__ import annotations

import importlib.resources
import textwrap
from pathlib import Path

import pytest
import tokenizers

from memtui.engine import InvalidArgument, Memory
from memtui.engine.quoting import count_tokens
from tests import lines

ROOT = Path(__file__).resolve().parents[1]

# Varied text: prose, code, logs, and five other languages (Latin, Cyrillic and CJK scripts).
SAMPLES = {
    "prose": (ROOT / "README.md").read_text()[:6000],
    "code": (ROOT / "memtui" / "store" / "fts.py").read_text()[:6000],
    "log": (
        'Traceback (most recent call last):\n  File "/srv/app/main.py", line 42, in <module>\n'
        "    main()\nKeyError: 'user_id'\n2026-11-24T10:00:00Z ERROR [worker-3] failed to "
        "connect to 10.0.0.12:5432 after 3 retries (timeout=30s)\n"
    )
    * 5,
    "german": "Die Bundesregierung hat am Mittwoch beschlossen, die Förderung für erneuerbare "
    "Energien deutlich auszuweiten. Kritiker bemängeln jedoch, dass die Netzinfrastruktur "
    "nicht schnell genug mitwachse. " * 3,
    "french": "Le gouvernement a annoncé mercredi un nouveau plan pour améliorer les transports "
    "publics dans les grandes villes. Les usagers pourront bénéficier de tarifs réduits. " * 3,
    "russian": "Правительство объявило о новом плане развития общественного транспорта в "  # noqa: RUF001
    "крупных городах. Пассажиры смогут пользоваться льготными тарифами. " * 3,
    "japanese": "政府は水曜日、大都市の公共交通機関を改善するための新しい計画を発表した。"
    "利用者は割引運賃とより頻繁な運行の恩恵を受けることができる。" * 3,
    "chinese": "政府周三宣布了一项改善大城市公共交通的新计划。乘客将享受优惠票价和更频繁的班次。"
    * 3,
}


@pytest.mark.parametrize("kind", sorted(SAMPLES))
def test_token_count_within_ten_percent_of_claudes_tokenizer(kind: str) -> None:
    # Claude's legacy tokenizer, as the anthropic SDK shipped it (a test extra).
    path = importlib.resources.files("anthropic") / "tokenizer.json"
    real = len(tokenizers.Tokenizer.from_file(str(path)).encode(SAMPLES[kind]).ids)
    assert abs(count_tokens(SAMPLES[kind]) - real) <= 0.10 * real


@pytest.fixture
def project(memory: Memory, claude_dir: Path) -> Memory:
    for i in range(8):
        sid = f"ctx-{i}"
        lines.write(
            claude_dir / "-shop" / f"{sid}.jsonl",
            lines.user(f"{sid}-u", f"session {i}: the refund webhook retries twice", sid),
        )
    lines.write(
        claude_dir / "-other" / "o-1.jsonl",
        lines.user("o-1-u", "unrelated garden notes", "o-1", cwd="/home/dev/garden"),
    )
    memory.upkeep.ingest()
    memory.notes.save("Always run ruff", "Run ruff before every commit.", "rule", by="person")
    memory.notes.save(
        "Refund plan",
        "Webhooks retry twice, then page.\n" * 20,
        "state",
        by="person",
        source_session_id="ctx-0",
    )
    memory.notes.save("Garden plan", "Tomatoes.", "state", by="person", source_session_id="o-1")
    memory.notes.save("Refund decision", "We chose idempotency keys.", "past", by="person")
    return memory


def test_context_sections_in_priority_order(project: Memory) -> None:
    ctx = project.context.get(lines.CWD, "refund webhook idempotency", 4000)
    headings = [s.heading for s in ctx.sections]
    assert headings == [
        "House rules",
        "Where this project was left off",
        "Current state",
        "Recent sessions",
        "Related",
    ]
    assert "Refund plan" in ctx.text and "Garden plan" not in ctx.text
    assert "Always run ruff" in ctx.text
    assert ctx.text.count("(1 message, ctx-") == 5  # the five most recent sessions
    assert "Refund decision" in ctx.sections[-1].text
    assert ctx.tokens <= 4000


def test_related_messages_the_projects_first_then_others(project: Memory, claude_dir: Path) -> None:
    lines.write(
        claude_dir / "-far" / "f-1.jsonl",
        lines.user("f-1-u", "the refund webhook retries twice, far away", "f-1", cwd="/w/far"),
    )
    project.upkeep.ingest()
    related = project.context.get(lines.CWD, "refund webhook retries twice", 4000).sections[-1]
    messages = [line for line in related.text.splitlines() if line.startswith("- 20")]
    assert len(messages) == 3
    assert "far away" not in "".join(messages[:2])
    # With only one message of its own, the project's comes first and others fill in ...
    alone = project.context.get("/home/dev/garden", "refund webhook retries, garden notes", 4000)
    found = [line for line in alone.sections[-1].text.splitlines() if line.startswith("- 20")]
    assert len(found) == 3 and "garden" in found[0] and "refund" in "".join(found[1:])
    # ... when it is related: not only the nearest by meaning among the full-text matches.
    apart = project.context.get("/home/dev/garden", "refund webhook retries twice", 4000)
    assert "garden" not in apart.sections[-1].text


def test_related_holds_no_rule_and_no_note_only_nearest(project: Memory) -> None:
    """A rule Claude saved waits for the person's approval, and is never injected, Related
    included; an approved one is the house rules'. A note that is only the nearest by
    meaning, however far, is not related."""
    project.notes.save(
        "Always squash", "Squash every refund webhook pull request.", "rule", by="agent"
    )
    related = project.context.get(lines.CWD, "refund webhook pull request", 4000).sections[-1]
    assert related.heading == "Related" and "Refund decision" in related.text
    assert "Always squash" not in related.text and "Always run ruff" not in related.text
    assert "Garden plan" not in related.text  # no word of the query, not near in meaning
    nothing = project.context.get(lines.CWD, "zebra saxophone", 4000)
    assert "## Related" not in nothing.text, nothing.text


@pytest.mark.parametrize("budget", [50, 60, 80, 120, 200, 400, 1000, 4000, 32_000])
def test_context_never_over_budget(project: Memory, budget: int) -> None:
    ctx = project.context.get(lines.CWD, "refund webhook", budget)
    assert ctx.tokens <= budget
    if budget <= 80:
        assert ctx.left_out


def test_house_rules_follow_every_change(project: Memory) -> None:
    """The rules are kept between calls until a note changes: an approval, an edit and a
    deletion each show in the next context."""
    assert "Lint first" not in project.context.get(lines.CWD, None, 4000).text
    rule = project.notes.save("Lint first", "Run the linter.", "rule", by="agent").note
    assert "Lint first" not in project.context.get(lines.CWD, None, 4000).text  # provisional
    project.notes.approve(rule.id)
    assert "Run the linter." in project.context.get(lines.CWD, None, 4000).text
    project.notes.update(rule.id, body="Run ruff, then mypy.", by="person")
    text = project.context.get(lines.CWD, None, 4000).text
    assert "Run ruff, then mypy." in text and "Run the linter." not in text
    project.notes.delete(rule.id, by="person")
    assert "Lint first" not in project.context.get(lines.CWD, None, 4000).text


def test_a_cwd_inside_the_project_gets_its_state_notes(project: Memory) -> None:
    """Claude Code started in a subfolder of the project: the state notes in a folder named
    like the project are its, as at the project's root (not those named like the subfolder)."""
    project.notes.save("Deploy freeze", "Frozen.", "state", by="person", folder="work/shop-api")
    project.notes.save("Src layout", "Flat.", "state", by="person", folder="api")
    at_root = project.context.get(lines.CWD, None, 4000).text
    inside = project.context.get(lines.CWD + "/src/api", None, 4000).text
    for text in (at_root, inside):
        assert "Deploy freeze" in text and "Refund plan" in text and "Src layout" not in text
        assert "(1 message, ctx-" in text


def test_trace_wants_a_claims_words_together_not_scattered_over_a_message(
    memory: Memory, claude_dir: Path
) -> None:
    """A long answer holds most words somewhere: support is what one passage of it says."""
    filler = "Nothing else happened in this step of the afternoon."
    answer = " ".join(
        [
            "The KeyError in the logs was about the cache.",
            *[filler] * 10,
            "We could keep Settings as is and add a guard instead.",
            *[filler] * 10,
            "The DATABASE_URL default lives in the deploy chart.",
            *[filler] * 10,
            "Tests are fixed now.",
            "The retry queue drains in pages of fifty.",
        ]
    )
    lines.write(
        claude_dir / "-shop" / "tr-1.jsonl",
        lines.user("tr-u", "what happened with the KeyError?", "tr-1")
        + lines.assistant("tr-a", "msg_tr", lines.text(answer), "tr-1"),
    )
    memory.upkeep.ingest()
    found = memory.trace.trace(
        "We fixed the KeyError DATABASE_URL by adding a default in settings. "
        "The retry queue drains in pages of fifty."
    )
    assert [c.supported for c in found.claims] == [False, True], found.claims


def test_trace_reads_a_long_sentence_wrapped_over_lines_as_one_passage(memory: Memory) -> None:
    claim = (
        "The nightly export job writes every customer invoice to the billing bucket in Parquet, "
        "partitioned by region and month, then the reconciliation worker compares totals "
        "against the ledger service and pages the on-call engineer whenever they differ."
    )
    memory.notes.save("Invoice export", textwrap.fill(claim, 60), "past", by="person")
    (found,) = memory.trace.trace(claim).claims
    assert found.supported and found.support[0].score == 1.0


def test_context_bad_budget_and_unknown_cwd(project: Memory) -> None:
    for bad in (49, 32_001, True, "2000"):
        with pytest.raises(InvalidArgument, match="token_budget"):
            project.context.get(lines.CWD, None, bad)  # type: ignore[arg-type]
    ctx = project.context.get("/nowhere/at/all", None, 2000)
    assert [s.heading for s in ctx.sections] == ["House rules"]


def test_trace_supports_copied_claims_and_flags_invented(project: Memory) -> None:
    draft = (
        "We chose idempotency keys for refunds. "
        "The refund webhook retries twice. "
        "The billing service was rewritten in Haskell by the platform guild."
    )
    found = project.trace.trace(draft)
    assert [c.supported for c in found.claims] == [True, True, False]
    assert found.unsupported == [
        "The billing service was rewritten in Haskell by the platform guild."
    ]
    kinds = {s.kind for c in found.claims[:2] for s in c.support}
    assert kinds == {"note", "message"}
    with pytest.raises(InvalidArgument, match="no claim"):
        project.trace.trace("ok")
    with pytest.raises(InvalidArgument, match="characters"):
        project.trace.trace("word " * 20_000)
