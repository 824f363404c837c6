"""When a text is near a query in meaning: the calibrated test behind hybrid search.

A static model's vectors share one strong direction (an archive's mean vector has a norm of
about 0.7), so how similar a query is to any text depends first on how close the query lies to
that direction: "database ran out of connections" is 0.53 similar to an unrelated note about
paging a sync, and a vague question 0.54 to its answer. A fixed cut on similarity (0.65
before) could not tell such pairs apart. What does is the *lift*: a text's similarity to the
query less the query's similarity to the archive's centre (the mean of its vectors), i.e. how
much closer the text is to the query than the archive's ordinary text is. The centre is the
index's own (vectors.Vectors.centre); a small archive's is pulled towards the centre of
`REFERENCE` (ordinary text embedded once per model), as if that were PRIOR texts of it, so a
store of three messages does not measure each against their own mean.

NEAR_LIFT was chosen on labelled pairs (bench/calibrate_near.py; bench/README.md, "A
calibrated near"): over 9,000 vectors, the nearest text of another domain (coding messages
for a question about someone's life, and back) reaches it for 5 % of 506 questions, while
the answers reach it for 84 % of lexical questions, 81 % of questions about long histories,
63 % about Claude Code projects, 56 % of plain questions and 8 % of paraphrases. Longer
questions have lower lifts on both sides, and so do questions the model knows few words of
(names, identifiers) on the unrelated side only, but a gibberish query is of those too (its
nearest text lifts 0.25-0.35): the cut is one number, and a query of which neither the model
nor the archive knows a word has nothing near it (`baselines`).
"""

from __future__ import annotations

import threading
import weakref
from typing import Protocol

import numpy as np

from memtui.store.embed import SMALL, Embedder
from memtui.store.fts import FullText
from memtui.store.vectors import Vectors

# The calibrated cut on lift (similarity less the query's similarity to the centre).
NEAR_LIFT = 0.22

# Ordinary text, as an archive holds it: people asking Claude for work, Claude's answers and
# tool talk, and everyday conversation; the prior for a small archive's centre.
REFERENCE = (
    "can you look at why the tests fail on CI? they pass locally but the pipeline has been "
    "red since this morning's merge",
    "run the whole test suite again and tell me which tests are slow",
    "ok commit that with a sensible message and push it to the feature branch",
    "the build is broken after the last merge, the type checker complains about the new "
    "config loader. can you fix it without changing the public API?",
    "add a command line flag to skip the slow integration tests, and document it in the README",
    "rename fetch_user to load_user everywhere and update the callers and the tests",
    "why is the orders endpoint so slow? it takes three seconds on staging with real data",
    "write a database migration for the new status column and backfill the existing rows",
    "what does this error mean and how do I get rid of it?",
    "let's continue where we left off yesterday with the refactoring of the payment module",
    "please review the changes on this branch before I open a pull request",
    "the app crashes when I open the settings screen on Android, here is the stack trace",
    "we keep getting timeouts from the upstream API at peak hours, what are our options?",
    "I fixed the failing test: the fixture used the real clock, so the expiry check depended on "
    "when the test ran. It now freezes time with a fixed date, and the test passes reliably.",
    "All 248 tests pass. The slowest suite is the integration tests at about forty seconds; "
    "most of that is starting the database container.",
    "I read the file and found the problem: the loop starts at one instead of zero, so the first "
    "item was never processed. I fixed the index and added a test for a list of one item.",
    "Done. I renamed the function, updated its twelve callers and the tests, and ran the type "
    "checker and the linter again; both are clean.",
    "The error comes from a missing environment variable in the deploy script. The service "
    "reads DATABASE_URL at start-up and exits when it is empty, so I added it to the staging "
    "configuration and a clear message when it is missing.",
    "I added an index on the column the query filters by. The query plan now uses the index and "
    "the endpoint answers in about forty milliseconds instead of three seconds.",
    "Here is a summary of what changed: the parser now accepts empty lines, the writer keeps the "
    "original order of the keys, and the command line tool reports errors with line numbers.",
    "The migration adds the column with a default value and backfills the existing rows in "
    "batches of ten thousand, so the table is never locked for long.",
    "The request times out because the client retries immediately without a backoff, and every "
    "retry adds load. I added exponential backoff with jitter and a cap of five attempts.",
    "The dependency was pinned to an old version that uses a deprecated API. Upgrading it to "
    "the current release removed the warning, and the changelog lists no breaking change.",
    "I couldn't reproduce it locally at first; the difference is the timezone of the CI machine, "
    "which runs in UTC. The date is now computed in the user's timezone and tested in both.",
    "I moved the email sending to a background job, so the request returns at once; the job "
    "retries three times if the mail server refuses the connection.",
    "Let me check the logs first. The worker restarted twice overnight after running out of "
    "memory while processing the nightly export.",
    'Traceback (most recent call last): File "app/main.py", line 42, in <module> '
    "ValueError: invalid literal for int() with base 10",
    "npm ERR! code ERESOLVE npm ERR! ERESOLVE unable to resolve dependency tree",
    "error[E0502]: cannot borrow `items` as mutable because it is also borrowed as immutable",
    "FAILED tests/test_api.py::test_create_order - AssertionError: expected 201, got 500",
    "psql: error: connection to server on socket failed: Connection refused",
    "Updated 4 files: src/api/orders.py, src/models/order.py, tests/test_orders.py, README.md",
    "thanks, that was quick. what should we do next, the open review comments or the bug?",
    "I'm tired, let's stop here for today and pick it up tomorrow morning",
    "how was your weekend? we went to the beach with the kids and it rained the whole time",
    "my sister is visiting next week so I'll be working shorter days",
    "I started running again, three times a week before work, and I feel much better",
    "we're thinking about moving to a bigger flat closer to the school, but rents are high",
    "That sounds like a lovely weekend, rain or not. Let me know when you want to pick up the "
    "work again; everything from today is committed on the branch.",
    "Congratulations, that's wonderful news! Starting a new routine is the hardest part, and "
    "three runs a week is a good rhythm to keep.",
    "It depends on your budget and how much time you have. A simple plan is to list what "
    "matters most, compare two or three options, and decide by the end of the week.",
)


PRIOR = 100  # the reference centre counts as this many of an archive's vectors
UNKNOWN = 2.0  # above a baseline: no similarity (at most 1) lifts a text past 0 from there

_reference: weakref.WeakKeyDictionary[Embedder, np.ndarray] = weakref.WeakKeyDictionary()
_lock = threading.Lock()


class Indexed(Protocol):
    """An index of texts (the messages', the notes'): its model, vectors and full text."""

    @property
    def embedder(self) -> Embedder: ...
    @property
    def vectors(self) -> Vectors: ...
    @property
    def fts(self) -> FullText: ...


def baselines(index: Indexed, texts: list[str], vecs: np.ndarray) -> np.ndarray:
    """What each text's lifts are measured from: its vector's similarity to the centre; past
    any similarity, so that nothing is near it, for a text of which neither the model nor the
    archive's full text knows a word (gibberish: `zxqvbnm` is the mean of the scraps z ##x ##q
    ##vb ##n ##m, and such a mean lifts 0.22-0.31 towards texts as unrelated). An identifier
    the model cuts into scraps but the archive holds (`kubernetes`) keeps its meaning: its
    scraps' mean is near the texts that hold it."""
    base = vecs @ centre(index.embedder, index.vectors)
    known = np.array([knows(index, text) for text in texts], dtype=bool)
    return np.where(known, base, base + UNKNOWN).astype(np.float32)


def knows(index: Indexed, text: str) -> bool:
    """Whether the model or the index's full text knows a word of `text`."""
    return index.embedder.knows(text) or any(r > 0 for r in index.fts.rarities(text)[0])


def centre(embedder: Embedder, vectors: Vectors) -> np.ndarray:
    """The centre a lift is measured from: the index's mean vector, pulled towards the
    reference texts' mean as if those were PRIOR of its vectors."""
    with _lock:
        ref = _reference.get(embedder)
        if ref is None:
            # SMALL at a time, on the query lane: all at once would make the batch lane (a
            # model and tokenizer copy, ~0.14 s) in a process that only searches.
            parts = [
                embedder.encode(REFERENCE[i : i + SMALL]) for i in range(0, len(REFERENCE), SMALL)
            ]
            ref = _reference[embedder] = np.concatenate(parts).mean(axis=0)
    mean, n = vectors.centre()
    return ((PRIOR * ref + n * mean) / (PRIOR + n)).astype(np.float32)
