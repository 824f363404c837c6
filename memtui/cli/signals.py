"""Signals (patterns found in notes and conversations) and the inferences minted from them."""

from __future__ import annotations

import sys
from argparse import Namespace
from collections import Counter
from typing import TYPE_CHECKING

from memtui.cli.base import JSON, Family, arg, id_of, limit, text, yes
from memtui.cli.say import confirm, print_json, say, when
from memtui.engine import short_id, to_dict
from memtui.engine.signal_types import INFERENCE_STATUSES, SIGNAL_STATUSES, SIGNAL_TYPES

if TYPE_CHECKING:
    from memtui.engine import Memory

family = Family()


@family.command(
    "signals",
    "patterns found in your notes and conversations",
    arg("--type", choices=SIGNAL_TYPES, help="only this kind"),
    arg("--status", choices=(*SIGNAL_STATUSES, "all"), default="new", help="default: new"),
    limit(1000, 50),
    JSON,
)
def signals(memory: Memory, args: Namespace) -> None:
    status = None if args.status == "all" else args.status
    listed = memory.signals.list(args.type, status, args.limit)
    found = listed.signals
    if args.json:
        print_json({"signals": to_dict(found), "total": listed.total})
        return
    if not found:
        say("no signals" + (f" with status {status}" if status else ""), file=sys.stderr)
    for s in found:
        say(f"#{s.id:<5} {s.type:<16} {s.status:<11} {s.title}")
        say(f"       {s.detail}")
        for n in s.notes:
            say(f"       note #{n.id} {n.title}")
        for m in s.messages:
            at = f"{short_id(m.session_id)} #{m.message_index}"
            say(f"       {at} {when(m.timestamp)} {m.project}")
    if listed.total > len(found):
        say(f"{len(found):,} of {listed.total:,} (--limit shows more)", file=sys.stderr)


@family.command(
    "signal",
    "dismiss, snooze or reopen a signal",
    arg("action", choices=["dismiss", "snooze", "new"]),
    arg("id", type=id_of("signal"), help="the signal's id"),
    arg("--until", type=text, default="7d", help="snooze: 7d, 12h, 2w or a date (default 7d)"),
)
def signal(memory: Memory, args: Namespace) -> None:
    status = {"dismiss": "dismissed", "snooze": "snoozed", "new": "new"}[args.action]
    until = args.until if status == "snoozed" else None
    s = memory.signals.update_status(args.id, status, until)
    till = f" until {s.snooze_until[:16]}" if s.snooze_until else ""
    say(f"signal #{s.id} is {s.status}{till}: {s.title}")


@family.command(
    "inferences",
    "the conclusions you approved, re-checked",
    arg("--status", choices=INFERENCE_STATUSES, help="active or stale"),
    JSON,
)
def inferences(memory: Memory, args: Namespace) -> None:
    found = memory.inferences.list(args.status)
    if args.json:
        print_json({"inferences": to_dict(found)})
        return
    if not found:
        every = Counter(i.status for i in memory.inferences.list(None)) if args.status else {}
        have = ", ".join(f"{n:,} {status}" for status, n in sorted(every.items()))
        said = f"no {args.status} inferences ({have})" if have else "no inferences yet"
        say(said, file=sys.stderr)
    for i in found:
        say(f"#{i.id:<5} {i.status:<7} {i.title}  {i.citation}")
        for e in i.evidence:
            if e.state != "unchanged":
                say(f"       {e.kind} {e.ref} {e.title!r}: {e.state}")


@family.command(
    "inference",
    "confirm a stale inference again, on its evidence as it reads now, or drop one",
    arg("action", choices=["confirm", "drop"]),
    arg("id", type=id_of("inference"), help="the inference's id"),
    yes("drop: do not ask first"),
)
def inference(memory: Memory, args: Namespace) -> None:
    if args.action == "confirm":
        kept = memory.inferences.keep(args.id)
        say(f"inference #{kept.id} is {kept.status}: {kept.title}  {kept.citation}")
        return
    found = memory.inferences.get_inference(args.id)
    confirm(
        args.yes,
        f"Drop inference #{found.id} {found.title!r}?",
        refused=f"dropping inference {found.id} needs a yes",
        declined="nothing dropped",
    )
    gone = memory.inferences.drop(found.id)
    again = f"; signal #{gone.signal_id} is new again" if gone.signal_id else ""
    say(f"inference #{gone.id} dropped{again}: {gone.title}")
