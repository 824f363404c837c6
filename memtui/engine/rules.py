"""House rules: the approved rule notes as the MCP server's instructions put them.

Read from SQLite alone (no index, no model, nothing heavy to import), so `memtui mcp` can
answer `initialize` with them before it loads anything else.
"""

from __future__ import annotations

import logging

from memtui.config import Config
from memtui.engine.notes_types import HouseRules
from memtui.store import db
from memtui.store import notes as store

log = logging.getLogger(__name__)

HEADING = "## House rules\n"


def house_rules(config: Config) -> HouseRules:
    """The approved rules, oldest first, within `config.rules_max_chars`: cut at a note
    boundary, the dropped ones named in the log. Empty when switched off or there are none;
    a data dir that does not exist yet is not created."""
    if not config.inject_rules or not config.db_path.exists():
        return HouseRules("", [], [])
    with db.translated(config.db_path):
        conn = db.connect(config.db_path)
        try:
            rules = store.rules(conn, "approved")
        finally:
            conn.close()
    if not rules:
        return HouseRules("", [], [])
    text, included, dropped = HEADING, [], []
    for rule in rules:
        part = f"\n### {rule.title}\n{rule.body.strip()}\n"
        if dropped or len(text) + len(part) > config.rules_max_chars:
            dropped.append(rule)
            continue
        text += part
        included.append(rule.id)
    if dropped:
        log.warning(
            "house rules over MEMTUI_RULES_MAX_CHARS (%d): left out %s",
            config.rules_max_chars,
            ", ".join(f"{r.id} {r.title!r}" for r in dropped),
        )
    if not included:
        return HouseRules("", [], [r.id for r in dropped])
    return HouseRules(text, included, [r.id for r in dropped])
