"""The signals screen and an inference's provenance on fixed data, dark and light
(pytest-textual-snapshot). Notes are imported with fixed ids and times, the mint time is
fixed, times are shown in UTC. Update: `pytest tests/test_tui_signals_snapshots.py
--snapshot-update`, then look at the SVGs in tests/__snapshots__/."""

from __future__ import annotations

import time
from collections.abc import Callable, Iterator
from pathlib import Path

import pytest
from textual.pilot import Pilot

from memtui.engine import Memory, Note
from memtui.engine import inferences as inferences_module
from memtui.tui.app import MemtuiApp
from memtui.tui.browse import BrowseScreen
from memtui.tui.signals.inferences import InferencesScreen, ProvenanceScreen
from memtui.tui.signals.listing import SignalsScreen
from tests.tui_support import settled, until

SIZES = [(80, 24), (120, 34)]
THEMES = ["textual-dark", "textual-light"]
MINTED = "2026-11-20T09:30:00+00:00"
Snap = Callable[..., bool]


def fixed(i: int, title: str, body: str, layer: str, folder: str, day: str) -> Note:
    when = f"2026-{day}T10:{i:02d}:00+00:00"
    return Note(i, title, body, layer, folder, [], when, when, "person", None)


NOTES = [
    fixed(1, "Deploy plan", "See [[Rollback runbook]] first.", "state", "ops", "10-02"),
    fixed(2, "Auth decisions", "Tokens live in [[Token storage]].", "past", "auth", "10-14"),
    fixed(3, "Release checklist", "Tag, then [[Signing keys]].", "past", "ops", "11-01"),
    fixed(4, "Canary deploys", "Every deploy goes to a canary first.", "past", "ops", "11-03"),
]


@pytest.fixture(autouse=True)
def fixed_place(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> Iterator[None]:
    monkeypatch.setenv("XDG_CONFIG_HOME", str(tmp_path / "config"))
    monkeypatch.setenv("TZ", "UTC")
    time.tzset()
    yield
    monkeypatch.undo()
    time.tzset()


@pytest.fixture
def triaged(memory: Memory, monkeypatch: pytest.MonkeyPatch) -> Memory:
    """Three dangling links; an inference over three notes, one since changed, one deleted."""
    memory.notes.import_notes(NOTES)
    memory.signals.detect()
    monkeypatch.setattr(inferences_module, "_now", lambda: MINTED)
    memory.inferences.mint(
        "Deploys lean on pages not written yet",
        "The deploy notes link to a runbook and keys no note describes.",
        0.7,
        confirmed=True,
        evidence_note_ids=[1, 3, 4],
    )
    memory.notes.update(1, by="person", body="See [[Rollback runbook]] first, then a canary.")
    memory.notes.delete(3, by="person")
    return memory


def themed(theme: str, then: Callable[[Pilot[None]], object]) -> Callable:
    async def before(pilot: Pilot[None]) -> None:
        app = pilot.app
        app.theme = theme
        await until(pilot, lambda: isinstance(app.screen, BrowseScreen) and app.screen.loaded)
        await then(pilot)  # type: ignore[misc]
        await settled(pilot)
        await pilot.pause(0.3)

    return before


async def _signals(pilot: Pilot[None]) -> None:
    app = pilot.app
    await pilot.press("s")
    await until(pilot, lambda: isinstance(app.screen, SignalsScreen) and app.screen.loaded)


async def _provenance(pilot: Pilot[None]) -> None:
    app = pilot.app
    await pilot.press("i")
    await until(pilot, lambda: isinstance(app.screen, InferencesScreen) and app.screen.loaded)
    await pilot.press("p")
    await until(
        pilot,
        lambda: isinstance(app.screen, ProvenanceScreen) and app.screen.inference is not None,
    )


@pytest.mark.parametrize("size", SIZES, ids=lambda s: f"{s[0]}x{s[1]}")
@pytest.mark.parametrize("theme", THEMES)
def test_signals_screen(
    triaged: Memory, snap_compare: Snap, theme: str, size: tuple[int, int]
) -> None:
    app = MemtuiApp(triaged, upkeep=False)
    assert snap_compare(app, terminal_size=size, run_before=themed(theme, _signals))


@pytest.mark.parametrize("size", SIZES, ids=lambda s: f"{s[0]}x{s[1]}")
@pytest.mark.parametrize("theme", THEMES)
def test_provenance_view(
    triaged: Memory, snap_compare: Snap, theme: str, size: tuple[int, int]
) -> None:
    app = MemtuiApp(triaged, upkeep=False)
    assert snap_compare(app, terminal_size=size, run_before=themed(theme, _provenance))
