"""House rules: the approved rule notes as the MCP server's instructions put them.

Read from SQLite alone (no index, no model, nothing heavy to import), so `memtui mcp` can
answer `initialize` with them before it loads anything else.
"""

from __future__ import annotations

import logging
import sqlite3
from collections.abc import Callable
from dataclasses import dataclass

from memtui.config import Config
from memtui.store import db
from memtui.store import notes as store

log = logging.getLogger(__name__)

HEADING = "## House rules\n"


@dataclass(slots=True)
class HouseRules:
    """The approved rules as the MCP instructions' "House rules" section."""

    text: str  # "" when there are none or MEMTUI_INJECT_RULES=0
    included: list[int]  # note ids, in the order shown
    dropped: list[int]  # approved rules cut to stay within MEMTUI_RULES_MAX_CHARS


def house_rules(config: Config, max_chars: int | None = None) -> HouseRules:
    """The approved rules, oldest first, within `max_chars` (default MEMTUI_RULES_MAX_CHARS):
    cut at a note boundary, the dropped ones named in the log. Empty when switched off or
    there are none; a data dir that does not exist yet is not created."""
    if not config.inject_rules or not config.db_path.exists():
        return HouseRules("", [], [])
    with db.translated(config.db_path):
        conn = db.connect(config.db_path)
        try:
            return read(conn, config, max_chars)
        finally:
            conn.close()


def read(
    conn: sqlite3.Connection,
    config: Config,
    max_chars: int | None = None,
    applies: Callable[[str], bool] | None = None,
) -> HouseRules:
    """`house_rules` on a connection the caller has open; with `applies`, only the rules
    whose folder it accepts (context.Scope: a rule in a folder named like another project
    is that project's)."""
    if not config.inject_rules:
        return HouseRules("", [], [])
    budget = config.rules_max_chars if max_chars is None else max_chars
    rules = [r for r in store.rules(conn, "approved") if applies is None or applies(r.folder)]
    if not rules:
        return HouseRules("", [], [])
    text, included, dropped = HEADING, [], []
    for rule in rules:
        part = f"\n### {rule.title}\n{rule.body.strip()}\n"
        if dropped or len(text) + len(part) > budget:
            dropped.append(rule)
            continue
        text += part
        included.append(rule.id)
    if dropped:
        log.warning(
            "house rules over their budget of %d characters: left out %s",
            budget,
            ", ".join(f"{r.id} {r.title!r}" for r in dropped),
        )
    if not included:
        return HouseRules("", [], [r.id for r in dropped])
    return HouseRules(text, included, [r.id for r in dropped])
