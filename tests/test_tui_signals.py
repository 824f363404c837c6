"""Pilot tests of signals and inferences in the TUI: each triage and each mint is done from
the keyboard and checked in the engine afterwards (memory.signals.get,
memory.inferences.list), on the real store."""

from __future__ import annotations

from collections.abc import Iterator
from datetime import UTC, datetime, timedelta
from pathlib import Path

import pytest
from textual.pilot import Pilot
from textual.widgets import Input, OptionList, SelectionList, Static

from memtui.engine import Memory
from memtui.engine.signal_types import Signal
from memtui.tui.app import MemtuiApp, binding_ids
from memtui.tui.browse import BrowseScreen
from memtui.tui.format import when
from memtui.tui.forms import Confirm
from memtui.tui.notes.editor import BodyArea, NoteEditor
from memtui.tui.notes.listing import NoteTable
from memtui.tui.notes.view import NoteScreen
from memtui.tui.session import SessionScreen
from memtui.tui.signals.area import SignalsArea
from memtui.tui.signals.dialogs import MintForm, Snooze
from memtui.tui.signals.inferences import (
    InferencesScreen,
    InferenceTable,
    ProvenanceList,
    ProvenanceScreen,
)
from memtui.tui.signals.listing import EvidenceList, SignalsScreen, SignalTable, TypeList
from tests.tui_support import settled, small_archive, until

SIZE = (120, 36)
RUNBOOK = "[[Rollback runbook]] has no note"
STORAGE = "[[Token storage]] has no note"


@pytest.fixture(autouse=True)
def config_home(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> Path:
    home = tmp_path / "config"
    monkeypatch.setenv("XDG_CONFIG_HOME", str(home))
    return home / "memtui"


@pytest.fixture
def signalled(memory: Memory) -> Iterator[Memory]:
    """Three notes, each linking to a note that does not exist: three dangling links."""
    n = memory.notes
    n.save("Deploy plan", "See [[Rollback runbook]] first.", "state", by="person", folder="ops")
    n.save("Auth decisions", "Tokens live in [[Token storage]].", "past", by="person")
    n.save("Release checklist", "Tag, then [[Signing keys]].", "past", by="person")
    memory.signals.detect()
    yield memory


@pytest.fixture
def archived(memory: Memory, claude_dir: Path) -> Memory:
    """The corpus's sessions: the same error in several of them, a recurring_error signal
    whose evidence is messages."""
    small_archive(claude_dir, messages=240)
    memory.upkeep.ingest(wait=True)
    memory.signals.detect()
    return memory


def recurring(memory: Memory) -> Signal:
    found = memory.signals.list(type="recurring_error").signals
    assert found, "the corpus has an error that recurs"
    return max(found, key=lambda s: len(s.messages))


def signal_id(memory: Memory, title: str) -> int:
    return next(s.id for s in memory.signals.list(status=None).signals if s.title == title)


async def signals_screen(pilot: Pilot[None], title: str | None = None) -> SignalsScreen:
    app = pilot.app
    await until(pilot, lambda: isinstance(app.screen, BrowseScreen))
    await pilot.press("s")
    await until(pilot, lambda: isinstance(app.screen, SignalsScreen) and app.screen.loaded)
    screen = app.screen
    assert isinstance(screen, SignalsScreen)
    if title is not None:
        await highlight(pilot, screen, title)
    return screen


async def highlight(pilot: Pilot[None], screen: SignalsScreen, title: str) -> None:
    key = next(k for k, s in screen.signals.items() if s.title == title)
    table = screen.query_one(SignalTable)
    table.move_cursor(row=table.get_row_index(key))
    table.focus()
    await pilot.pause()


async def test_dismiss_asks_once_then_the_engine_has_it(signalled: Memory) -> None:
    sid = signal_id(signalled, RUNBOOK)
    app = MemtuiApp(signalled, upkeep=False)
    async with app.run_test(size=SIZE) as pilot:
        screen = await signals_screen(pilot, RUNBOOK)
        await pilot.press("d")
        await until(pilot, lambda: isinstance(app.screen, Confirm))
        await pilot.press("n")  # kept
        await until(pilot, lambda: app.screen is screen)
        await settled(pilot)
        assert signalled.signals.get(sid).status == "new"
        await pilot.press("d")
        await until(pilot, lambda: isinstance(app.screen, Confirm))
        await pilot.press("y")
        await until(pilot, lambda: signalled.signals.get(sid).status == "dismissed")
        await until(pilot, lambda: str(sid) not in screen.signals)
        # the status switch shows it among the dismissed, and u brings it back
        await pilot.press("s", "s")
        await until(pilot, lambda: screen.status == "dismissed" and str(sid) in screen.signals)
        await highlight(pilot, screen, RUNBOOK)
        await pilot.press("u")
        await until(pilot, lambda: signalled.signals.get(sid).status == "new")


async def test_the_signals_keep_focus_and_the_cursor_through_empty_statuses(
    signalled: Memory,
) -> None:
    """s through snoozed, dismissed and synthesized (none of each) to any status: the list
    still has the keys, and d asks about the signal that was highlighted, not the first."""
    app = MemtuiApp(signalled, upkeep=False)
    async with app.run_test(size=SIZE) as pilot:
        screen = await signals_screen(pilot)
        table = screen.query_one(SignalTable)
        await pilot.press("G")
        await until(pilot, lambda: table.cursor_row == 2)
        last = screen._current()
        assert last is not None
        for status in ("snoozed", "dismissed", "synthesized", None):
            await pilot.press("s")
            await until(pilot, lambda s=status: screen.status == s and not _loading(app))
        await until(pilot, lambda: len(screen.signals) == 3)
        assert table.has_focus
        current = screen._current()
        assert current is not None and current.id == last.id
        await pilot.press("g")
        await until(pilot, lambda: table.cursor_row == 0)
        await pilot.press("G")
        await until(pilot, lambda: table.cursor_row == 2)
        await pilot.press("k")
        await until(pilot, lambda: table.cursor_row == 1)
        wanted = screen._current()
        assert wanted is not None
        await pilot.press("d")
        await until(pilot, lambda: isinstance(app.screen, Confirm))
        assert isinstance(app.screen, Confirm) and wanted.title in app.screen.question


def _loading(app: MemtuiApp) -> bool:
    return any(w.group == "signals" and not w.is_finished for w in app.workers)


@pytest.mark.parametrize(("keys", "until_prefix"), [("7", None), ("t", "2031-01-02")])
async def test_snooze_for_days_or_until_a_date(
    signalled: Memory, keys: str, until_prefix: str | None
) -> None:
    sid = signal_id(signalled, STORAGE)
    app = MemtuiApp(signalled, upkeep=False)
    async with app.run_test(size=SIZE) as pilot:
        screen = await signals_screen(pilot, STORAGE)
        await pilot.press("z")
        await until(pilot, lambda: isinstance(app.screen, Snooze))
        await pilot.press(keys)
        if keys == "t":
            assert app.screen.query_one(Input).has_focus
            await pilot.press(*"2031-01-02", "enter")
        await until(pilot, lambda: signalled.signals.get(sid).status == "snoozed")
        until_at = signalled.signals.get(sid).snooze_until or ""
        if until_prefix is not None:
            assert until_at.startswith(until_prefix)
        else:
            ahead = datetime.fromisoformat(until_at) - datetime.now(UTC)
            assert timedelta(days=6, hours=23) < ahead <= timedelta(days=7)
        await until(pilot, lambda: str(sid) not in screen.signals)
        await pilot.press("s")  # the snoozed ones
        await until(pilot, lambda: screen.status == "snoozed" and str(sid) in screen.signals)


async def test_a_snooze_the_engine_refuses_is_a_notification_with_its_code(
    signalled: Memory,
) -> None:
    sid = signal_id(signalled, STORAGE)
    app = MemtuiApp(signalled, upkeep=False)
    async with app.run_test(size=SIZE) as pilot:
        await signals_screen(pilot, STORAGE)
        await pilot.press("z")
        await until(pilot, lambda: isinstance(app.screen, Snooze))
        await pilot.press("t", *"2001-01-01", "enter")
        await until(
            pilot, lambda: any("INVALID_ARGUMENT" in str(n.message) for n in app._notifications)
        )
        assert signalled.signals.get(sid).status == "new"
        said = [str(n.message) for n in app._notifications if "INVALID_ARGUMENT" in str(n.message)]
        assert "the snooze time '2001-01-01' is not in the future" in said[0], said
        assert "`" not in said[0] and "snooze_until" not in said[0], said  # the TUI's words


async def test_mint_from_a_signal_only_on_the_confirm(signalled: Memory) -> None:
    sid = signal_id(signalled, RUNBOOK)
    deploy = next(n.id for n in signalled.notes.list() if n.title == "Deploy plan")
    app = MemtuiApp(signalled, upkeep=False)
    async with app.run_test(size=SIZE) as pilot:
        screen = await signals_screen(pilot, RUNBOOK)
        await pilot.press("m")
        await until(pilot, lambda: isinstance(app.screen, MintForm))
        form = app.screen
        # prefilled from the signal: its title, its detail, its evidence
        assert form.query_one("#mint-title", Input).value == RUNBOOK
        assert form.query_one(SelectionList).selected == [f"note:{deploy}"]
        form.query_one("#mint-title", Input).value = "Deploys lack a rollback runbook"
        form.query_one("#mint-confidence", Input).value = "0.8"
        await pilot.press("ctrl+s")
        await until(pilot, lambda: isinstance(app.screen, Confirm))
        await pilot.press("n")  # not yet: nothing written
        await until(pilot, lambda: app.screen is form)
        await settled(pilot)
        assert signalled.inferences.list() == []
        await pilot.press("ctrl+s")
        await until(pilot, lambda: isinstance(app.screen, Confirm))
        await pilot.press("y")
        await until(pilot, lambda: app.screen is screen)
        minted = signalled.inferences.list()
        assert [(i.title, i.confidence, i.signal_id) for i in minted] == [
            ("Deploys lack a rollback runbook", 0.8, sid)
        ]
        assert [(e.kind, e.ref) for e in minted[0].evidence] == [("note", str(deploy))]
        assert signalled.signals.get(sid).status == "synthesized"
        await until(pilot, lambda: str(sid) not in screen.signals)


async def test_the_mint_form_with_no_evidence_chosen_mints_nothing(signalled: Memory) -> None:
    app = MemtuiApp(signalled, upkeep=False)
    async with app.run_test(size=SIZE) as pilot:
        await signals_screen(pilot, RUNBOOK)
        await pilot.press("m")
        await until(pilot, lambda: isinstance(app.screen, MintForm))
        form = app.screen
        form.query_one(SelectionList).deselect_all()
        await pilot.press("ctrl+s")
        await settled(pilot)
        assert app.screen is form and not isinstance(app.screen, Confirm)
        assert signalled.inferences.list() == []


async def test_escape_leaves_the_mint_form_without_writing(signalled: Memory) -> None:
    app = MemtuiApp(signalled, upkeep=False)
    async with app.run_test(size=SIZE) as pilot:
        screen = await signals_screen(pilot, RUNBOOK)
        await pilot.press("m")
        await until(pilot, lambda: isinstance(app.screen, MintForm))
        await pilot.press("escape")
        await until(pilot, lambda: app.screen is screen)
        assert signalled.inferences.list() == []


async def test_the_evidence_note_opens_in_the_notes_view(signalled: Memory) -> None:
    app = MemtuiApp(signalled, upkeep=False)
    async with app.run_test(size=SIZE) as pilot:
        screen = await signals_screen(pilot, RUNBOOK)
        assert screen.query_one(EvidenceList).option_count == 1
        await pilot.press("o")
        await until(
            pilot,
            lambda: (
                isinstance(app.screen, NoteScreen)
                and app.screen.detail is not None
                and app.screen.detail.note.title == "Deploy plan"
            ),
        )


async def test_stale_inferences_are_marked_shown_confirmed_again_and_dropped(
    signalled: Memory,
) -> None:
    notes = {n.title: n.id for n in signalled.notes.list()}
    inf = signalled.inferences.mint(
        "Links run ahead of notes",
        "Notes link to pages not written yet.",
        0.6,
        confirmed=True,
        evidence_note_ids=[
            notes["Deploy plan"],
            notes["Auth decisions"],
            notes["Release checklist"],
        ],
    )
    signalled.notes.update(
        notes["Deploy plan"], by="person", body="See [[Rollback runbook]] first, then canary."
    )
    signalled.notes.delete(notes["Release checklist"], by="person")
    app = MemtuiApp(signalled, upkeep=False)
    async with app.run_test(size=SIZE) as pilot:
        await until(pilot, lambda: isinstance(app.screen, BrowseScreen))
        await pilot.press("i")
        await until(pilot, lambda: isinstance(app.screen, InferencesScreen) and app.screen.loaded)
        listing = app.screen
        assert listing.inferences[str(inf.id)].status == "stale"
        await pilot.press("enter")
        await until(
            pilot,
            lambda: isinstance(app.screen, ProvenanceScreen) and app.screen.inference is not None,
        )
        prov = app.screen
        assert prov.inference is not None
        states = {e.title: e.state for e in prov.inference.evidence}
        assert states == {
            "Deploy plan": "changed",
            "Auth decisions": "unchanged",
            "Release checklist": "deleted",
        }
        changed = next(i for i, e in enumerate(prov.inference.evidence) if e.state == "changed")
        prov.query_one("#provenance-list").highlighted = changed  # type: ignore[attr-defined]
        await pilot.pause()
        diff = str(prov.query_one("#provenance-diff", Static).content)
        assert "+" in diff and "canary" in diff
        # Its person still holds it: c, asked once, rests it on its evidence as it reads now.
        await pilot.press("c")
        await until(pilot, lambda: isinstance(app.screen, Confirm))
        await pilot.press("y")
        await until(pilot, lambda: prov.inference is not None and prov.inference.status == "active")
        assert {e.title for e in prov.inference.evidence} == {"Auth decisions", "Deploy plan"}
        await pilot.press("escape")
        await until(pilot, lambda: listing.inferences[str(inf.id)].status == "active")
        await pilot.press("c")
        await pilot.pause()
        assert app.screen is listing, "an active inference has nothing to confirm"
        await pilot.press("d")
        await until(pilot, lambda: isinstance(app.screen, Confirm))
        await pilot.press("n")
        await pilot.press("d")
        await until(pilot, lambda: isinstance(app.screen, Confirm))
        await pilot.press("y")
        await until(pilot, lambda: not listing.inferences)
        assert signalled.inferences.list() == []


async def test_the_inferences_and_the_provenance_follow_an_evidence_note_edited_elsewhere(
    signalled: Memory,
) -> None:
    """An evidence note edited from a shell: the Inferences screen says stale while on it;
    the provenance follows an edit made from it (open the note, edit, come back) and one
    made from a shell while it is shown."""
    notes = {n.title: n.id for n in signalled.notes.list()}
    inf = signalled.inferences.mint(
        "Links run ahead of notes",
        "Notes link to pages not written yet.",
        0.6,
        confirmed=True,
        evidence_note_ids=[notes["Deploy plan"], notes["Auth decisions"]],
    )
    app = MemtuiApp(signalled, upkeep=False)
    async with app.run_test(size=SIZE) as pilot:
        await until(pilot, lambda: isinstance(app.screen, BrowseScreen))
        await pilot.press("i")
        await until(pilot, lambda: isinstance(app.screen, InferencesScreen) and app.screen.loaded)
        listing = app.screen
        assert isinstance(listing, InferencesScreen)
        assert listing.inferences[str(inf.id)].status == "active"
        with Memory(signalled.config) as shell:  # `memtui note edit` in another terminal
            shell.notes.update(notes["Deploy plan"], by="person", body="Rollback first.")
        await until(pilot, lambda: listing.inferences[str(inf.id)].status == "stale")
        table = listing.query_one(InferenceTable)
        assert "stale" in str(table.get_cell(str(inf.id), "state"))

        await pilot.press("p")
        await until(
            pilot,
            lambda: isinstance(app.screen, ProvenanceScreen) and app.screen.inference is not None,
        )
        prov = app.screen
        assert isinstance(prov, ProvenanceScreen)

        def state(title: str) -> str:
            assert prov.inference is not None
            return next(e.state for e in prov.inference.evidence if e.title == title)

        assert state("Auth decisions") == "unchanged"
        at = next(i for i, e in enumerate(prov.inference.evidence) if e.title == "Auth decisions")
        prov.query_one("#provenance-list", OptionList).highlighted = at
        await pilot.press("o")
        await until(pilot, lambda: isinstance(app.screen, NoteScreen) and app.screen.detail)
        await pilot.press("e")
        await until(pilot, lambda: isinstance(app.screen, NoteEditor))
        app.screen.query_one(BodyArea).focus()
        await pilot.press("end", "x", "ctrl+s")
        await until(pilot, lambda: isinstance(app.screen, NoteScreen))
        await pilot.press("escape")
        await until(pilot, lambda: app.screen is prov)
        await until(pilot, lambda: state("Auth decisions") == "changed")
        assert prov.query_one(ProvenanceList).highlighted == at  # the cursor stayed
        assert "changed" in str(prov.query_one(ProvenanceList).get_option_at_index(at).prompt)

        signalled.inferences.keep(inf.id)  # confirmed again, from a shell: active
        await until(pilot, lambda: prov.inference is not None and prov.inference.status == "active")
        with Memory(signalled.config) as shell:
            shell.notes.update(notes["Auth decisions"], by="person", body="Edited once more.")
        await until(pilot, lambda: state("Auth decisions") == "changed")


async def test_the_sidebar_counts_follow_new_notes(signalled: Memory) -> None:
    app = MemtuiApp(signalled, upkeep=False)
    async with app.run_test(size=SIZE) as pilot:
        await until(pilot, lambda: isinstance(app.screen, BrowseScreen))
        area = app.screen.query_one(SignalsArea)
        await until(pilot, lambda: area.seen is not None and area.seen.new_signals == 3)
        signalled.notes.save("Onboarding", "Start with [[Dev setup]].", "past", by="agent")
        await until(pilot, lambda: area.seen is not None and area.seen.new_signals == 4)
        await pilot.press("s")
        await until(pilot, lambda: isinstance(app.screen, SignalsScreen) and app.screen.loaded)
        assert len(app.screen.signals) == 4


async def test_every_signals_key_has_an_id_and_a_palette_entry(signalled: Memory) -> None:
    assert {
        "browse.signals",
        "browse.inferences",
        "signal.dismiss",
        "signal.snooze",
        "signal.new",
        "signal.mint",
        "signals.status",
        "signals.open",
        "snooze.week",
        "snooze.date",
        "mint.save",
        "inference.provenance",
        "inference.keep",
        "inference.drop",
        "provenance.open",
    } <= binding_ids()
    app = MemtuiApp(signalled, upkeep=False)
    async with app.run_test(size=SIZE) as pilot:
        await signals_screen(pilot, RUNBOOK)
        titles = {c.title for c in app.get_system_commands(app.screen)}
        assert {"Dismiss", "Snooze", "Mint", "Status", "Open evidence"} <= titles
        await pilot.press("question_mark")
        assert app.screen.query("HelpPanel")


async def test_a_keymap_remaps_a_signals_key(signalled: Memory, config_home: Path) -> None:
    config_home.mkdir(parents=True)
    (config_home / "keymap.toml").write_text('"signal.dismiss" = "x"\n')
    sid = signal_id(signalled, RUNBOOK)
    app = MemtuiApp(signalled, upkeep=False)
    async with app.run_test(size=SIZE) as pilot:
        await signals_screen(pilot, RUNBOOK)
        await pilot.press("x")
        await until(pilot, lambda: isinstance(app.screen, Confirm))
        await pilot.press("y")
        await until(pilot, lambda: signalled.signals.get(sid).status == "dismissed")


async def test_a_message_in_the_evidence_opens_its_session_at_it(archived: Memory) -> None:
    signal = recurring(archived)
    second = signal.messages[1]
    app = MemtuiApp(archived, upkeep=False)
    async with app.run_test(size=SIZE) as pilot:
        screen = await signals_screen(pilot, signal.title)
        evidence = screen.query_one(EvidenceList)
        assert evidence.option_count == len(signal.messages)
        evidence.focus()
        await pilot.press("down", "enter")
        await until(pilot, lambda: isinstance(app.screen, SessionScreen))
        assert (app.screen.session_id, app.screen.at) == (second.session_id, second.message_index)


async def test_mint_from_messages_and_open_one_from_the_provenance(archived: Memory) -> None:
    signal = recurring(archived)
    app = MemtuiApp(archived, upkeep=False)
    async with app.run_test(size=SIZE) as pilot:
        screen = await signals_screen(pilot, signal.title)
        await pilot.press("m")
        await until(pilot, lambda: isinstance(app.screen, MintForm))
        await pilot.press("ctrl+s")
        await until(pilot, lambda: isinstance(app.screen, Confirm))
        await pilot.press("y")
        await until(pilot, lambda: app.screen is screen)
        minted = archived.inferences.list()
        assert len(minted) == 1
        assert sorted(e.ref for e in minted[0].evidence) == sorted(m.uuid for m in signal.messages)
        assert archived.signals.get(signal.id).status == "synthesized"
        await pilot.press("i")
        await until(pilot, lambda: isinstance(app.screen, InferencesScreen) and app.screen.loaded)
        await pilot.press("p")
        await until(
            pilot,
            lambda: isinstance(app.screen, ProvenanceScreen) and bool(app.screen.messages),
        )
        first = minted[0].evidence[0]
        assert first.state == "unchanged"
        await pilot.press("o")
        await until(pilot, lambda: isinstance(app.screen, SessionScreen))
        where = next(m for m in signal.messages if m.uuid == first.ref)
        assert (app.screen.session_id, app.screen.at) == (where.session_id, where.message_index)


async def test_the_mint_forms_buttons_show_on_an_80_by_24_terminal(archived: Memory) -> None:
    """The form has no footer: its buttons are what says ctrl+s mints, so they stay on screen
    when the evidence list is full (it scrolls instead)."""
    signal = recurring(archived)
    app = MemtuiApp(archived, upkeep=False)
    async with app.run_test(size=(80, 24)) as pilot:
        await signals_screen(pilot, signal.title)
        await pilot.press("m")
        await until(pilot, lambda: isinstance(app.screen, MintForm))
        await settled(pilot)
        for button in ("#mint", "#cancel"):
            region = app.screen.query_one(button).region
            assert region.height and region.bottom <= 24, (button, region)


@pytest.fixture
def two_arcs(archived: Memory) -> Memory:
    """Two hidden arcs (three unlinked notes alike, across folders, each) beside the
    corpus's recurring errors."""
    arcs = {
        "AudioWorklet meter drops frames in background tabs": "audio",
        "Meter node loses frames when the tab is hidden": "perf",
        "Background tab throttles the audio meter worklet": "notes",
        "Deploy needs the canary first": "ops",
        "Canary deploy before every release": "release",
        "Every deploy goes through the canary stage": "runbooks",
    }
    for i, (title, folder) in enumerate(arcs.items()):
        body = (
            "The AudioWorklet meter node drops frames when the browser tab is in the background."
            if i < 3
            else "Every deploy goes to the canary stage first and waits for its health checks."
        )
        archived.notes.save(title, body, "past", by="person", folder=folder)
    archived.signals.detect()
    assert len(archived.signals.list(type="hidden_arc").signals) == 2
    return archived


def title_cells(table: SignalTable) -> list[str]:
    """The title column as drawn, row by row."""
    lines = [table.render_line(y).text for y in range(1, table.row_count + 1)]
    start = table.render_line(0).text.index("Title")
    return [line[start:].strip() for line in lines]


async def test_signal_titles_at_80_columns_differ_and_end_at_a_word(two_arcs: Memory) -> None:
    app = MemtuiApp(two_arcs, upkeep=False)
    async with app.run_test(size=(80, 24)) as pilot:
        screen = await signals_screen(pilot)
        await settled(pilot)
        table = screen.query_one(SignalTable)
        shown = list(zip(screen.signals.values(), title_cells(table), strict=True))
        arcs = [cell for s, cell in shown if s.type == "hidden_arc"]
        assert len(arcs) == 2 and arcs[0] != arcs[1], arcs
        for signal, cell in shown:
            if cell.endswith("…"):  # cut: after a whole word of the title
                kept = cell.removesuffix("…")
                assert signal.title.startswith(kept), (signal.title, cell)
                assert signal.title[len(kept)] == " ", (signal.title, cell)


async def test_message_evidence_has_its_dates_and_the_mint_form_tells_rows_apart(
    archived: Memory,
) -> None:
    signal = recurring(archived)
    app = MemtuiApp(archived, upkeep=False)
    async with app.run_test(size=(80, 24)) as pilot:
        screen = await signals_screen(pilot, signal.title)
        evidence = screen.query_one(EvidenceList)
        for k, m in enumerate(signal.messages):
            assert when(m.timestamp) in str(evidence.get_option_at_index(k).prompt)
        await pilot.press("m")
        await until(pilot, lambda: isinstance(app.screen, MintForm))
        await settled(pilot)
        rows = app.screen.query_one(SelectionList)
        prompts = [str(rows.get_option_at_index(k).prompt) for k in range(rows.option_count)]
        assert len(set(prompts)) == len(prompts) == len(signal.messages)
        for m, prompt in zip(signal.messages, prompts, strict=True):
            assert when(m.timestamp) in prompt
        # every row on screen, without focusing the list first
        assert rows.region.height >= rows.option_count, rows.region
        assert rows.region.bottom <= 24 - 1


async def test_the_row_tables_offer_no_sideways_keys(signalled: Memory) -> None:
    """The keys panel lists what works: the notes, signals and inferences tables fit their
    width and never scroll sideways, so DataTable's left, right and ctrl+page keys are not
    theirs, and left reaches the screen (the types, the filters)."""
    app = MemtuiApp(signalled, upkeep=False)
    async with app.run_test(size=SIZE) as pilot:
        screen = await signals_screen(pilot)
        table = screen.query_one(SignalTable)
        assert table.has_focus
        for kind in (SignalTable, NoteTable, InferenceTable):
            merged = kind._merged_bindings
            assert merged is not None
            actions = {b.action for keyed in merged.key_to_bindings.values() for b in keyed}
            assert {"cursor_down", "cursor_up", "select_cursor", "page_down"} <= actions, kind
            assert not {"cursor_left", "cursor_right", "page_left", "page_right"} & actions, kind
        await pilot.press("left")
        await until(pilot, lambda: screen.query_one(TypeList).has_focus)
