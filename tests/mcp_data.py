"""A small archive the MCP tests share: two projects, three sessions, known words and dates."""

from __future__ import annotations

from pathlib import Path

from tests.lines import assistant, text, user, write

SHOP, CRAWLER = "/home/dev/shop-api", "/home/dev/crawler"
# Two sessions share the prefix "aaaa" so that a short prefix is ambiguous.
CHECKOUT = "aaaa1111-0000-4000-8000-000000000001"
BILLING = "aaaa2222-0000-4000-8000-000000000002"
CRAWL = "cccc3333-0000-4000-8000-000000000003"
LONG_ANSWER = "The webhook fixture pinned a timestamp. " * 40  # > 500 characters

# Each tool's arguments, in SPEC's order (for the fuzz: forget is left out, it would empty the
# archive the other calls read).
ARGUMENTS = {
    "search_history": [
        "query",
        "mode",
        "cwd",
        "project",
        "session_id",
        "after",
        "before",
        "role",
        "agent",
        "alternatives",
        "by",
        "limit",
        "response_format",
    ],
    "get_session": ["session_id", "offset", "limit", "order", "search"],
    "read_session": ["session_id", "start_line", "end_line"],
    "get_recent_sessions": ["cwd", "limit", "agent"],
    "list_projects": [],
    "memory_stats": [],
    "get_signals": ["type", "status"],
    "update_signal_status": ["id", "status", "snooze_until"],
    "list_inferences": ["status"],
    "get_inference": ["id"],
    "mint_inference": [
        "title",
        "summary",
        "evidence_note_ids",
        "evidence_message_uuids",
        "confidence",
        "signal_id",
        "confirmed",
    ],
    "get_context": ["cwd", "query", "token_budget"],
    "trace": ["text"],
}

# A raw initialize request, for tests that speak HTTP without the client.
INIT = {
    "jsonrpc": "2.0",
    "id": 1,
    "method": "initialize",
    "params": {
        "protocolVersion": "2025-11-25",
        "capabilities": {},
        "clientInfo": {"name": "test", "version": "0"},
    },
}
ACCEPT = {"Accept": "application/json, text/event-stream", "Content-Type": "application/json"}


def build(root: Path) -> None:
    shop = root / "-home-dev-shop-api"
    write(
        shop / f"{CHECKOUT}.jsonl",
        user("c-u1", "the checkout webhook test is flaky", CHECKOUT, "2026-01-10T09:00:00Z", SHOP)
        + assistant("c-a1", "msg_c1", text(LONG_ANSWER), CHECKOUT, "2026-01-10T09:01:00Z", SHOP)
        + user("c-u2", "so what fixed it in the end?", CHECKOUT, "2026-01-10T09:05:00Z", SHOP)
        + assistant(
            "c-a2",
            "msg_c2",
            text("Freezing the clock with a fixed refresh token expiry fixed the race."),
            CHECKOUT,
            "2026-01-10T09:06:00Z",
            SHOP,
        ),
    )
    write(
        shop / f"{BILLING}.jsonl",
        user(
            "b-u1", "rename snake_case_helper in invoice.py", BILLING, "2026-03-02T10:00:00Z", SHOP
        )
        + assistant(
            "b-a1",
            "msg_b1",
            text("Renamed it to format_invoice_line."),
            BILLING,
            "2026-03-02T10:01:00Z",
            SHOP,
        ),
    )
    crawler = root / "-home-dev-crawler" / f"{CRAWL}.jsonl"
    for n in range(12):
        write(
            crawler,
            user(
                f"k-u{n}",
                f"webhook retry number {n} hits HTTP 503",
                CRAWL,
                f"2026-06-{n + 1:02d}T10:00:00Z",
                CRAWLER,
            ),
        )
