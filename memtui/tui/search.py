"""Search every conversation as you type: debounced, the previous search dropped, filters
beside the box, a preview of the exchange around the highlighted hit."""

from __future__ import annotations

from dataclasses import dataclass, replace
from typing import TYPE_CHECKING, Any, ClassVar

from rich.markdown import Markdown
from rich.text import Text
from textual import on, work
from textual.actions import SkipAction
from textual.app import ComposeResult
from textual.binding import Binding, BindingType
from textual.containers import Horizontal, Vertical, VerticalScroll
from textual.screen import Screen
from textual.timer import Timer
from textual.widgets import Input, Select, Static
from textual.worker import get_current_worker

from memtui.engine import (
    AGENTS,
    MODES,
    By,
    MessageView,
    NoteHit,
    NoteSearchResponse,
    SearchResponse,
    SearchResult,
)
from memtui.engine.search import REACH
from memtui.errors import MemtuiError
from memtui.tui.filters import FilterRow, last_before, local_moment, nothing_between
from memtui.tui.format import agent_label, error_line, hit_words, one_line, short_names, when, who
from memtui.tui.messages import ArchiveChanged
from memtui.tui.notes import flows as notes_flows
from memtui.tui.notes import scope as note_scope
from memtui.tui.notes.scope import SCOPES, NoteHitList, Scope
from memtui.tui.results import HitList, ResultList
from memtui.tui.session import CODE_THEME, KIND_LABEL, SessionScreen
from memtui.tui.status import Keys, StatusLine

if TYPE_CHECKING:
    from memtui.tui.app import MemtuiApp

DEBOUNCE = 0.2  # seconds of quiet typing before a search runs
PLACEHOLDER: dict[Scope, str] = {
    "messages": "search every conversation",
    "notes": "search every note",
    "both": "search every conversation and note",
}
LIMIT = 30  # about three screens of hits, and as many more each time the cursor reaches the end
PREVIEW_CHARS = 4000  # of the hit's message in the preview
PREVIEW_DELAY = 0.08  # seconds the cursor rests on a hit before its exchange loads
MODE_LABEL = {"hybrid": "hybrid", "fts": "full text", "vector": "vector"}
NEAREST_LABEL = "nearest by meaning — not matches"  # above a list when nothing matched


@dataclass(frozen=True, slots=True)
class Query:
    text: str
    mode: str
    project: str | None
    role: str | None
    after: str | None
    before: str | None
    scope: str = "messages"
    by: By = "message"
    agent: str | None = None


def all_in(response: SearchResponse) -> bool:
    """The list holds every page the query reaches: every match, or 1,000."""
    held = len(response.results)
    return held >= (REACH if response.more else min(response.total, REACH))


class SearchScreen(Screen[None]):
    app: MemtuiApp
    BINDINGS: ClassVar[list[BindingType]] = [
        Binding("escape", "back", "Back", id="screen.back"),
        Binding("ctrl+o", "cycle_mode", "Mode", id="search.mode"),
        Binding("ctrl+t", "cycle_scope", "Scope", id="search.scope"),
        Binding("ctrl+g", "toggle_by", "Group", id="search.by"),
        # Priority: resolved as the key arrives, so the keys typed right after it (a burst,
        # a paste, a fast typist) go where it moved the focus, not where the focus was.
        Binding("ctrl+l", "focus_query", "Query", id="search.query", priority=True),
        Binding("down", "focus_results", "Results", show=False, id="search.results", priority=True),
    ]

    def __init__(self, text: str = "", scope: Scope = "messages") -> None:
        super().__init__()
        self.initial = text
        self.mode = "hybrid"
        self.scope: Scope = scope
        self.by: By = "message"  # the messages' hits, or their conversations (ctrl+g)
        self.last_notes: NoteSearchResponse | None = None
        self._debounce: Timer | None = None
        self._preview_timer: Timer | None = None
        self._shown: Query | None = None  # the query whose results are on screen
        self._ended = False  # the list holds all the query's pages reach
        self._follow: str | None = None  # the conversation the cursor was in before ctrl+g
        self.last: SearchResponse | None = None

    @property
    def results(self) -> list[SearchResult]:
        """The hits on screen (the list holds them)."""
        return self.query_one(ResultList).hits

    def compose(self) -> ComposeResult:
        yield StatusLine()
        with Horizontal(id="search-bar"):
            # Not selected on focus: `up` from the hits comes back to refine the query, and a
            # key typed then must not replace it; ctrl+l selects it whole.
            yield Input(
                self.initial,
                placeholder=PLACEHOLDER[self.scope],
                id="query",
                select_on_focus=False,
            )
            yield Static(MODE_LABEL[self.mode], id="mode")
            yield Static(self.scope, id="scope")
        yield FilterRow(id="filters")
        yield Static("", id="search-summary")
        with Horizontal(id="search-body"):
            with Vertical(id="hits"):
                yield Static(NEAREST_LABEL, id="note-nearest", classes="nearest")
                yield NoteHitList(id="note-results")
                yield Static(NEAREST_LABEL, id="nearest", classes="nearest")
                yield ResultList(id="results")
            with VerticalScroll(id="preview"):
                yield Static("", id="preview-text")
        yield Keys()

    def on_mount(self) -> None:
        self._scoped()
        for listing in self.query(HitList):
            listing.on_past = self._past
        self.query_one("#query", Input).focus()
        self.load_projects()
        if self.initial:
            self.schedule()

    @work(thread=True, exit_on_error=False)
    def load_projects(self) -> None:
        projects = self.app.ask(self.app.memory.history.list_projects)
        if projects is None:
            return
        agents = self.app.ask(self.app.memory.history.agents)
        names = short_names(p.project for p in projects)
        options = [(names[p.project], p.project) for p in projects]
        present = [agent for agent in AGENTS if agent in (agents or {})]
        self.app.call_from_thread(self._projects_loaded, names, options, present)

    def _projects_loaded(
        self, names: dict[str, str], options: list[tuple[str, str]], agents: list[str]
    ) -> None:
        self.query_one(ResultList).names = names
        self.query_one("#project", Select).set_options(options)
        choice = self.query_one("#agent", Select)
        choice.set_options([(agent_label(agent), agent) for agent in agents])
        self.query_one(FilterRow).show_agents(len(agents) > 1)

    def query_now(self) -> Query:
        def chosen(name: str) -> str | None:
            value = self.query_one(f"#{name}", Select).value
            return value if isinstance(value, str) else None

        def text(name: str) -> str | None:
            return self.query_one(f"#{name}", Input).value.strip() or None

        return Query(
            self.query_one("#query", Input).value.strip(),
            self.mode,
            chosen("project"),
            chosen("role"),
            local_moment(text("after")),
            local_moment(text("before")),
            self.scope,
            self.by,
            chosen("agent"),
        )

    @on(Input.Changed)
    @on(Select.Changed)
    def schedule(self) -> None:
        """Restart the quiet-typing timer: only the last keystroke's query runs."""
        if self._debounce is not None:
            self._debounce.stop()
        self._debounce = self.set_timer(DEBOUNCE, self._fire)

    def _fire(self) -> None:
        self._debounce = None
        query = self.query_now()
        if not query.text:
            self._cleared()
            self.query_one("#search-summary", Static).update("")
            return
        if waiting := self._unfinished_date():
            self.query_one("#search-summary", Static).update(waiting)
            return
        if empty := nothing_between(query.after, query.before):
            self._cleared()
            self.query_one("#search-summary", Static).update(empty)
            return
        # The same query again (the archive grew): as many hits as the list holds, so the
        # reader keeps their place past the first page.
        held = len(self.results) if query == self._shown else 0
        self.last = self.last_notes = None
        if query.scope != "notes":
            self.run_search(query, min(max(LIMIT, held), REACH))
        if query.scope != "messages":
            self.run_note_search(query)

    def _unfinished_date(self) -> str | None:
        """What to type while a date box does not hold a date (yet: `2025-` on the way to
        `2025-03-01`; the box marks itself): the search waits with the results on screen.
        None when both boxes can be searched."""
        for side in ("after", "before"):
            if not self.query_one(f"#{side}", Input).is_valid:
                return f"{side} takes a date like 2026-11-01: the search waits"
        return None

    @work(thread=True, exclusive=True, group="search", exit_on_error=False)
    def run_search(self, query: Query, limit: int, offset: int = 0) -> None:
        """Exclusive: a newer search cancels this one; its answer, if late, is dropped. From
        `offset`: the next page of the query on screen, added below it."""
        worker = get_current_worker()
        try:
            response = self.app.memory.history.search(
                query.text,
                query.mode,
                project=query.project,
                role=query.role,
                after=query.after,
                before=query.before,
                limit=limit,
                offset=offset,
                by=query.by,
                agent=query.agent,
            )
        except MemtuiError as exc:
            if not worker.is_cancelled:
                self.app.call_from_thread(self._failed, exc)
            return
        if worker.is_cancelled:
            return
        if offset:
            self.app.call_from_thread(self.show_more, query, response)
        else:
            self.app.call_from_thread(self.show_results, query, response)

    def cancel_search(self) -> bool:
        """Drop the search under way, and the one about to start (typed, not yet run), if
        either is; whether there was one."""
        running = [w for w in self.workers if w.group == "search" and w.is_running]
        for worker in running:
            worker.cancel()
        pending = self._debounce is not None
        if self._debounce is not None:
            self._debounce.stop()
            self._debounce = None
        if running or pending:
            self.query_one("#search-summary", Static).update("search cancelled")
        return bool(running) or pending

    def _failed(self, exc: MemtuiError) -> None:
        """The error alone: results of an earlier query must not read as this one's."""
        self.last = self.last_notes = None
        self._cleared()
        self.query_one("#search-summary", Static).update(Text(error_line(exc), style="bold"))

    def _cleared(self) -> None:
        """No query on screen: both lists empty, their labels gone, the preview too."""
        self._shown = None
        self.query_one(ResultList).show([])
        self.query_one(NoteHitList).show([])
        self.query_one("#preview-text", Static).update("")
        for label in self.query(".nearest"):
            label.remove_class("-shown")

    def show_results(self, query: Query, response: SearchResponse) -> None:
        if query != self.query_now():
            return  # typed on since: the next search is on its way
        again = self._shown == query  # the archive grew: keep the reader's place
        self._shown = query
        self._ended = all_in(response)
        self.last = response
        listing = self.query_one(ResultList)
        listing.show_response(response, keep=again)
        follow, self._follow = self._follow, None
        at = [h.session_id for h in listing.hits]
        if follow in at and not again:  # regrouped: the cursor stays in its conversation
            listing.highlighted = at.index(follow)
        nearest = not response.results and bool(response.nearest)
        self.query_one("#nearest", Static).set_class(nearest, "-shown")
        self._summary()

    def more(self) -> None:
        """The cursor reached the last hit: the next page, if the query has one."""
        last, query = self.last, self._shown
        if last is None or query is None or not last.results or query != self.query_now():
            return
        if self._ended:
            self.query_one(ResultList).owed = 0
        elif not any(w.group == "search" and w.is_running for w in self.workers):
            self.run_search(query, LIMIT, len(last.results))

    def show_more(self, query: Query, response: SearchResponse) -> None:
        """The next page below the hits on screen, the cursor where it was (or as far on as
        keys asked while it loaded); the counts are the newer ones (a floor may rise as
        paging goes deeper)."""
        last, listing = self.last, self.query_one(ResultList)
        if query != self._shown or query != self.query_now() or last is None:
            return
        if response.results:
            last = self.last = replace(
                response,
                results=last.results + response.results,
                sessions=last.sessions + response.sessions,
                offset=0,
                limit=len(last.results) + len(response.results),
            )
            listing.show_response(last, keep=True)
        self._ended = not response.results or all_in(last)
        if self._ended:
            listing.owed = 0
        self._summary()

    def _summary(self) -> None:
        # Where the list ends is said once it was paged to there (a first page is whole).
        paged = self._ended and len(self.results) > LIMIT
        shown = note_scope.summary(self.scope, self.last, self.last_notes, MODE_LABEL, paged)
        self.query_one("#search-summary", Static).update(shown)

    @work(thread=True, exclusive=True, group="note-search", exit_on_error=False)
    def run_note_search(self, query: Query) -> None:
        """The notes' side of the query: the same words, mode and dates."""
        worker = get_current_worker()
        try:
            response = self.app.memory.notes.search(
                query.text,
                mode=query.mode,
                date_from=query.after,
                date_to=last_before(query.before),
                limit=LIMIT,
                flashbacks=False,
            )
        except MemtuiError as exc:
            if not worker.is_cancelled:
                self.app.call_from_thread(self._failed, exc)
            return
        if not worker.is_cancelled:
            self.app.call_from_thread(self.show_note_results, query, response)

    def show_note_results(self, query: Query, response: NoteSearchResponse) -> None:
        if query != self.query_now():
            return
        self.last_notes = response
        self.query_one(NoteHitList).show_response(response)
        nearest = not response.results and bool(response.nearest)
        self.query_one("#note-nearest", Static).set_class(nearest, "-shown")
        if self.scope == "notes" and not self.query_one(NoteHitList).hits:
            self.query_one("#preview-text", Static).update("")  # not an earlier message's
        self._summary()

    def _previews(self, notes: bool) -> bool:
        """Whether the preview follows the note hits (`notes`) or the message hits: the list
        that has the cursor; else the one `enter` goes to from the box (the notes when both
        are shown and some note matched)."""
        note_list = self.query_one(NoteHitList)
        if self.scope != "both":
            return notes == (self.scope == "notes")
        if note_list.has_focus or self.query_one(ResultList).has_focus:
            return notes == note_list.has_focus
        return notes == bool(note_list.hits)

    @on(NoteHitList.Highlighted)
    def _note_highlighted(self, event: NoteHitList.Highlighted) -> None:
        if not self._previews(notes=True):
            return
        if self._preview_timer is not None:
            self._preview_timer.stop()
        hit = event.hit
        self._preview_timer = self.set_timer(PREVIEW_DELAY, lambda: self.preview_note(hit))

    @work(thread=True, exclusive=True, group="preview", exit_on_error=False)
    def preview_note(self, hit: NoteHit) -> None:
        detail = self.app.ask(lambda: self.app.memory.notes.get(hit.note.id))
        if detail is not None and not get_current_worker().is_cancelled:
            theme = CODE_THEME[self.app.current_theme.dark]
            shown = note_scope.preview(hit, detail.note.body, theme)
            self.app.call_from_thread(self._show_note_preview, shown)

    def _show_note_preview(self, shown: Markdown) -> None:
        if self._previews(notes=True):  # the scope may have changed while it loaded
            self.query_one("#preview-text", Static).update(shown)

    @on(NoteHitList.Selected)
    def _open_note(self, event: NoteHitList.Selected) -> None:
        notes_flows.open_note(self.app, event.hit.note.id)

    def action_cycle_scope(self) -> None:
        self.scope = SCOPES[(SCOPES.index(self.scope) + 1) % len(SCOPES)]
        self._scoped()
        self.schedule()

    def action_toggle_by(self) -> None:
        """The messages' hits, or the conversations they are in (each at its best hit)."""
        self.by = "session" if self.by == "message" else "message"
        hit = self.query_one(ResultList).current()
        self._follow = hit.session_id if hit is not None else None
        self._scoped()
        self.schedule()

    def check_action(self, action: str, parameters: tuple[object, ...]) -> bool | None:
        """Grouping is the messages': shown dimmed while only notes are searched."""
        return None if action == "toggle_by" and self.scope == "notes" else True

    def _scoped(self) -> None:
        """Show the lists the scope searches, and what the messages' list holds; the
        project, role and agent filters are the messages' own."""
        shown = "conversations" if self.scope == "messages" and self.by == "session" else self.scope
        self.query_one("#scope", Static).update(shown)
        for scope in SCOPES:
            self.set_class(self.scope == scope, f"-scope-{scope}")
        for name in ("project", "role", "agent"):
            self.query_one(f"#{name}", Select).disabled = self.scope == "notes"
        self.query_one("#query", Input).placeholder = PLACEHOLDER[self.scope]
        self.refresh_bindings()

    def on_archive_changed(self, _: ArchiveChanged) -> None:
        """New messages may answer the query on screen: run it again (debounced, as typing
        is; the cursor stays on its hit)."""
        if self.query_now().text:
            self.schedule()

    @on(ResultList.Highlighted)
    def _highlighted(self, event: ResultList.Highlighted) -> None:
        """The preview waits for a pause in the cursor's moves, as the search waits for
        typing: new results are drawn first, and j/j/j loads only where it stops."""
        if self.results and event.hit is self.results[-1]:
            self.more()
        if not self._previews(notes=False):
            return
        if self._preview_timer is not None:
            self._preview_timer.stop()
        hit = event.hit
        self._preview_timer = self.set_timer(PREVIEW_DELAY, lambda: self.preview(hit))

    @work(thread=True, exclusive=True, group="preview", exit_on_error=False)
    def preview(self, hit: SearchResult) -> None:
        """The hit with the message before and after it: the exchange it belongs to."""
        page = self.app.ask(
            lambda: self.app.memory.history.get_session(
                hit.session_id, offset=max(0, hit.message_index - 1), limit=3
            )
        )
        if page is not None and not get_current_worker().is_cancelled:
            self.app.call_from_thread(self._show_preview, hit, page.messages)

    def _show_preview(self, hit: SearchResult, messages: list[MessageView]) -> None:
        """The hit first in view: the message before it in two dim lines, the hit whole
        (its tool output too, the fold that holds the words open) with its words marked,
        then the start of the reply."""
        if not self._previews(notes=False):  # the scope may have changed while it loaded
            return
        words = hit_words(hit.snippet)
        text = Text()
        for m in messages:
            here = m.message_index == hit.message_index
            label = KIND_LABEL.get(m.kind) or who(m.role, m.kind, hit.agent)
            head = f"{'◆ ' if here else ''}{label}  {when(m.timestamp)}\n"
            text.append(head, style="bold reverse" if here else "bold dim")
            calls = "\n".join(f"{c.name}  {c.arg}" for c in m.tool_calls)
            parts = [m.text, calls, m.tool_output] if here else [m.text or m.tool_output or calls]
            body = "\n".join(p.strip() for p in parts if p and p.strip())
            if here:
                shown = Text(body[:PREVIEW_CHARS] + "\n\n")
                shown.highlight_words(words, style="bold reverse", case_sensitive=False)
                text.append_text(shown)
            else:
                text.append(one_line(body, 160) + "\n\n", style="dim")
        self.query_one("#preview-text", Static).update(text)
        self.query_one("#preview", VerticalScroll).scroll_home(animate=False)

    @on(ResultList.Selected)
    def _open(self, event: ResultList.Selected) -> None:
        hit = event.hit
        words = hit_words(hit.snippet)
        asked = (self.query_now().text, self.mode)
        opened = SessionScreen(hit.session_id, at=hit.message_index, words=words, asked=asked)
        self.app.push_screen(opened)

    @on(Input.Submitted, "#query")
    def _submitted(self) -> None:
        if (into := self._results_list()) is not None:
            self.set_focus(into)

    def action_cycle_mode(self) -> None:
        self.mode = MODES[(MODES.index(self.mode) + 1) % len(MODES)]
        self.query_one("#mode", Static).update(MODE_LABEL[self.mode])
        self.schedule()

    def action_focus_query(self) -> None:
        box = self.query_one("#query", Input)
        self.set_focus(box)  # now, not after a refresh: the next key typed goes there
        box.select_all()

    def action_focus_results(self) -> None:
        """Down from a box of the search bar into the hits; elsewhere (a list, a select's
        options) down is theirs, and with no hits it stays in the box."""
        into = self._results_list()
        if not isinstance(self.focused, Input) or into is None:
            raise SkipAction
        self.set_focus(into)  # now, not after a refresh: the next key of a burst goes there

    def _results_list(self) -> HitList[Any] | None:
        """The list down or enter goes to from the box: the notes when they are searched
        and some matched; None when the list has no hits (a key would be lost in it)."""
        notes = self.query_one(NoteHitList)
        into: HitList[Any] = notes
        if not (self.scope == "notes" or (self.scope == "both" and notes.hits)):
            into = self.query_one(ResultList)
        return into if into.hits else None

    def _past(self, control: HitList[Any], step: int) -> None:
        """Up and down go on past a list's ends: from the last note to the messages when
        both are shown, and back; from the first hit of the top list to the query box."""
        notes, messages = self.query_one(NoteHitList), self.query_one(ResultList)
        both = self.scope == "both" and notes.hits and messages.hits
        if step > 0 and control is notes and both:
            messages.highlighted = 0
            self.set_focus(messages)  # now, not after a refresh: the next key goes there
        elif step < 0 and control is messages and both:
            notes.highlighted = len(notes.hits) - 1
            self.set_focus(notes)
        elif step < 0:
            box = self.query_one("#query", Input)
            # Back to refine the query: ctrl+l's select-all is over (kept until now, so that
            # letters typed before a `down` of the same burst still replace the query).
            box.cursor_position = len(box.value)
            self.set_focus(box)

    def action_back(self) -> None:
        self.dismiss()
