"""What a person does with signals and inferences, from any screen. The person is the
caller: a status change or a mint runs in a worker thread, an engine error is a
notification with its code, and `then` runs on the screen's thread after a write."""

from __future__ import annotations

from collections.abc import Callable, Sequence
from typing import TYPE_CHECKING

from memtui.engine.signal_types import Inference, MessageRef, Signal

if TYPE_CHECKING:
    from memtui.tui.app import MemtuiApp

WRITES = "signal-write"


def signals(app: MemtuiApp) -> None:
    from memtui.tui.signals.listing import SignalsScreen

    app.push_screen(SignalsScreen())


def inferences(app: MemtuiApp, status: str | None = None) -> None:
    from memtui.tui.signals.inferences import InferencesScreen

    app.push_screen(InferencesScreen(status))


def provenance(app: MemtuiApp, inference_id: int) -> None:
    from memtui.tui.signals.inferences import ProvenanceScreen

    app.push_screen(ProvenanceScreen(inference_id))


def open_note(app: MemtuiApp, note_id: int) -> None:
    from memtui.tui.notes import flows as notes_flows

    notes_flows.open_note(app, note_id)


def open_message(app: MemtuiApp, message: MessageRef) -> None:
    from memtui.tui.session import SessionScreen

    app.push_screen(SessionScreen(message.session_id, at=message.message_index))


def set_status(
    app: MemtuiApp,
    signal: Signal,
    status: str,
    until: str | None = None,
    then: Callable[[], object] | None = None,
) -> None:
    """new, dismissed or snoozed (until a duration like `7d` or a date) in a worker."""

    def write() -> str | None:
        changed = app.ask(
            lambda: app.memory.signals.update_status(signal.id, status, snooze_until=until)
        )
        if changed is None:
            return None
        said = {"new": "back to new", "dismissed": "dismissed"}.get(status)
        if said is None:
            said = f"snoozed until {(changed.snooze_until or '')[:16].replace('T', ' ')}"
        return f"signal #{signal.id} {said}"

    _write(app, write, then)


def dismiss(app: MemtuiApp, signal: Signal, then: Callable[[], object] | None = None) -> None:
    """Asked once; a dismissed signal does not come back for the same evidence."""
    from memtui.tui.forms import Confirm

    def answered(yes: bool | None) -> None:
        if yes:
            set_status(app, signal, "dismissed", then=then)

    detail = "it does not come back for the same evidence; u brings it back from Dismissed"
    app.push_screen(Confirm(f"Dismiss {signal.title!r}?", detail, "Dismiss"), answered)


def snooze(app: MemtuiApp, signal: Signal, then: Callable[[], object] | None = None) -> None:
    from memtui.tui.signals.dialogs import Snooze

    def answered(until: str | None) -> None:
        if until:
            set_status(app, signal, "snoozed", until=until, then=then)

    app.push_screen(Snooze(signal.title), answered)


def mint_form(app: MemtuiApp, signal: Signal, then: Callable[[], object] | None = None) -> None:
    from memtui.tui.signals.dialogs import MintForm

    app.push_screen(MintForm(signal, then))


def mint(
    app: MemtuiApp,
    fields: tuple[str, str, float],
    note_ids: Sequence[int],
    uuids: Sequence[str],
    signal_id: int | None,
    then: Callable[[Inference], None],
) -> None:
    """Called only from the form's confirm: that answer is the person's `confirmed`."""
    title, summary, confidence = fields

    def write() -> None:
        minted = app.ask(
            lambda: app.memory.inferences.mint(
                title,
                summary,
                confidence,
                confirmed=True,
                evidence_note_ids=note_ids,
                evidence_message_uuids=uuids,
                signal_id=signal_id,
            )
        )
        if minted is None:
            return
        app.call_from_thread(app.notify, f"minted {minted.citation}")
        app.call_from_thread(then, minted)

    app.run_worker(write, thread=True, group=WRITES, exit_on_error=False)


def keep(app: MemtuiApp, inference: Inference, then: Callable[[], object] | None = None) -> None:
    """A stale inference its person still holds rests on its evidence as it reads now (its
    diffs since the mint are gone after)."""

    def write() -> str | None:
        kept = app.ask(lambda: app.memory.inferences.keep(inference.id))
        return None if kept is None else f"inference #{kept.id} confirmed: {kept.citation}"

    detail = (
        "it rests on each note and message as it reads now; one deleted since leaves it, "
        "and the diffs since the mint are gone"
    )
    question = f"Does {inference.title!r} still hold?"
    _asked(app, (question, detail, "Confirm", "Not now"), write, then)


def drop(app: MemtuiApp, inference: Inference, then: Callable[[], object] | None = None) -> None:
    """The inference is deleted, and the signal it came from is new again."""

    def write() -> str | None:
        gone = app.ask(lambda: app.memory.inferences.drop(inference.id))
        if gone is None:
            return None
        again = f"; signal #{gone.signal_id} is new again" if gone.signal_id else ""
        return f"inference #{gone.id} dropped{again}"

    detail = "it is deleted" + ("; its signal is new again" if inference.signal_id else "")
    _asked(app, (f"Drop {inference.title!r}?", detail, "Drop", "Keep"), write, then)


def _asked(
    app: MemtuiApp,
    question: tuple[str, str, str, str],
    write: Callable[[], str | None],
    then: Callable[[], object] | None,
) -> None:
    """Asked once (question, detail, yes, no); a yes runs `write` as `_write` does."""
    from memtui.tui.forms import Confirm

    def answered(yes: bool | None) -> None:
        if yes:
            _write(app, write, then)

    app.push_screen(Confirm(*question), answered)


def _write(
    app: MemtuiApp, write: Callable[[], str | None], then: Callable[[], object] | None
) -> None:
    """`write` in a worker; what it answers is said, then `then` runs on the screen's thread.
    None (an engine error, already notified by `app.ask`) ends it there."""

    def run() -> None:
        said = write()
        if said is None:
            return
        app.call_from_thread(app.notify, said)
        if then is not None:
            app.call_from_thread(then)

    app.run_worker(run, thread=True, group=WRITES, exit_on_error=False)
