"""What the signals put on screen together, for the keymap: each binding id here is one a
keymap may name, and a key may do one thing within each scope."""

from __future__ import annotations

from memtui.tui.signals.dialogs import MintForm, Snooze
from memtui.tui.signals.inferences import (
    InferencesScreen,
    InferenceTable,
    ProvenanceList,
    ProvenanceScreen,
)
from memtui.tui.signals.listing import EvidenceList, SignalsScreen, SignalTable, TypeList

SCOPES: tuple[tuple[type[object], ...], ...] = (
    (SignalsScreen, TypeList),
    (SignalsScreen, SignalTable),
    (SignalsScreen, EvidenceList),
    (InferencesScreen, InferenceTable),
    (ProvenanceScreen, ProvenanceList),
    (Snooze,),
    (MintForm,),
)
