"""Where each derived index stands against the store: plain data, light to import."""

from __future__ import annotations

from dataclasses import dataclass, field


@dataclass(slots=True)
class IndexHealth:
    store_seq: int
    fts_seq: int
    vector_seq: int
    fts_docs: int
    vectors: int
    fts_bytes: int
    vector_bytes: int
    torn: list[str] = field(default_factory=list)  # indexes whose contents disagree with marks
    other_model: bool = False  # the vectors were embedded by another model than this process's

    @property
    def in_step(self) -> bool:
        return (
            not self.torn
            and not self.other_model
            and self.fts_seq == self.store_seq
            and self.vector_seq == self.store_seq
        )
