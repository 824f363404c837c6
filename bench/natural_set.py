"""Natural questions over conversation text, for bench/quality.py.

People ask their history in plain sentences ("when did we last talk about the staging
migration?", "what did Priya say her new hobby was?"), full of words that say nothing about
the answer. Each conversation below is a Claude Code session that drifts between work and
small talk, as real ones do; some of its turns carry a fact, and each question names the turn
that answers it. Filler turns (`FILLER`, picked with a fixed seed) pad every conversation with
the small words of ordinary talk, so a ranking that lets "what", "did" or "last" weigh in is
caught. The answers are planted; nothing in the generated haystack knows them.
"""

from __future__ import annotations

import json
import random
import uuid
from dataclasses import dataclass
from datetime import UTC, datetime
from pathlib import Path
from typing import Any

import corpus

NS = uuid.UUID("0f3e2a71-95c4-4c1b-8d2e-6a7b9c0d1e2f")
MANIFEST = "conversations.json"
VERSION = "2.1.9"


@dataclass(frozen=True, slots=True)
class Conversation:
    key: str
    cwd: str
    turns: tuple[str, ...]  # alternating: the person first, then Claude
    questions: tuple[tuple[str, int], ...]  # (question, index in `turns` of the answering turn)


FILLER = (
    "ok, sounds good. what do you think we should do next?",
    "thanks! that was quick. did you run the tests as well?",
    "I ran the whole test suite again and everything passes. Let me know if you want me to "
    "look at anything else while we are at it.",
    "hmm, not sure about that one. can we talk about it later?",
    "Sure, we can come back to it later. I have left a note in the TODO list so it doesn't "
    "get lost, and nothing else depends on it for now.",
    "what was the thing you said earlier about the last change?",
    "I said that the last change only touches the one module, so it should be safe to merge "
    "once the review is done. Nothing else in the codebase calls it.",
    "ok let's leave it for today. I'll be back tomorrow morning",
    "Good idea. When you are back I can pick up where we left off: everything we did today is "
    "committed on the branch and the notes are in the pull request.",
    "did you see my message from before? the one about the meeting",
    "I did, and I have nothing to add to it: it reads well as it is. Do you want me to do "
    "anything with it before the meeting?",
    "can you explain that again in simpler words? I didn't get it the first time",
    "Of course. In short: it works the way it did before, with one small difference in when "
    "it runs, and you should not notice anything when you use it.",
    "yes please go ahead and do that",
    "Done. I made the change, ran the checks again and they all pass. Is there anything else "
    "you would like me to look at today?",
    "what did we say we would do about that last time?",
    "Last time we said we would wait and see whether it happens again before changing "
    "anything, and it has not happened since, as far as I can tell from the logs.",
    "haha yes. anyway, back to work",
    "Back to work then. Where would you like to start, with the open review comments or with "
    "the failing build from this morning?",
    "when you have a minute, can you also update the readme?",
    "I updated the README with the new steps and an example; have a look when you get the "
    "chance and tell me if anything is unclear or missing.",
)


CONVERSATIONS: tuple[Conversation, ...] = (
    Conversation(
        "staging-migration",
        "/home/dev/work/payments-api",
        (
            "we need to plan the staging migration to the new cluster. Marco wants it done "
            "before the end of the quarter",
            "For the staging migration I'd move the databases first, over a weekend, then "
            "the services one by one behind the same DNS names, so nobody has to change "
            "their config. The whole move should take about two days.",
            "ok. also, random thing: my sister just took up pottery, she goes to a class "
            "every Tuesday evening and now our kitchen is full of lopsided bowls",
            "That sounds like a lovely hobby, and lopsided bowls are a rite of passage. Back "
            "to the move: do you want me to write the runbook for the database part first?",
            "yes, write the runbook. and put the rollback steps at the top",
            "The runbook is in docs/runbooks/staging-move.md, with the rollback steps first: "
            "point DNS back at the old cluster, then restore the last snapshot, which takes "
            "about forty minutes.",
        ),
        (
            ("when did we talk about the staging migration?", 1),
            ("what did my sister start doing on Tuesdays?", 2),
            ("what was her new hobby, the one with the bowls?", 2),
            ("where did you put the runbook for the database move?", 5),
            ("how long does a rollback take according to the runbook?", 5),
        ),
    ),
    Conversation(
        "vacation-lisbon",
        "/home/dev/work/web-dashboard",
        (
            "heads up, I'm off from the 14th for two weeks, going to Lisbon with my partner. "
            "can we wrap up the dashboard filters before that?",
            "Yes, the filters can be done before the 14th: what's left is the date range "
            "picker and saving filter presets per user. I'll start with the date picker.",
            "great. the designer, Aiko, said the presets dropdown should look like the one in "
            "Linear",
            "I made the presets dropdown like Linear's: a compact list with a search box at "
            "the top and the current preset checked. Aiko can review it on the preview URL.",
            "what's the preview url again?",
            "The preview deploy for this branch is https://filters-presets.preview.acme.dev; "
            "it rebuilds on every push.",
        ),
        (
            ("where was I going on holiday?", 0),
            ("when did I say I'd be away?", 0),
            ("what did Aiko want the presets dropdown to look like?", 3),
            ("what did the designer say about the dropdown?", 2),
            ("what's the preview link for the filters branch?", 5),
        ),
    ),
    Conversation(
        "new-hire-onboarding",
        "/home/dev/work/accounts",
        (
            "we have a new backend engineer starting monday, Tomasz. what should his first "
            "week look like?",
            "For Tomasz's first week: day one laptop setup and a walk through the "
            "architecture; days two and three, pair on a small bug in the accounts service; "
            "then his own first pull request by Friday, something like the email "
            "verification resend limit.",
            "he mentioned he's a big climber, does bouldering three times a week. maybe we "
            "can do a team outing at the climbing gym",
            "A team outing at a climbing gym is a nice way to welcome him, and most gyms "
            "have intro sessions for beginners, so nobody needs experience.",
            "who should be his onboarding buddy? I was thinking Fatima",
            "Fatima is a good choice for his buddy: she wrote most of the accounts service "
            "and she's in the same time zone.",
        ),
        (
            ("what's the plan for Tomasz's first week?", 1),
            ("which sport does the new backend guy do?", 2),
            ("who did we pick as the new engineer's buddy?", 4),
            ("what did we say about a team outing?", 3),
        ),
    ),
    Conversation(
        "laptop-battery",
        "/home/dev/projects/memtui",
        (
            "my laptop battery dies in 2 hours since the last macOS update, is something "
            "running in the background?",
            "Activity Monitor's Energy tab points at `mds_stores`: Spotlight is re-indexing "
            "the whole disk after the update, which can take a day or two. It calms down on "
            "its own; you can exclude big folders like node_modules in Spotlight's privacy "
            "settings to make it faster.",
            "ugh. ok. what about the fan, it's loud all the time",
            "The fan is loud for the same reason: indexing keeps the CPU busy. Once Spotlight "
            "finishes, both the fan and the battery life should be back to normal.",
        ),
        (
            ("why was my battery draining so fast after the update?", 1),
            ("what was making the fan loud?", 3),
            ("which process was using all the energy?", 1),
        ),
    ),
    Conversation(
        "conference-talk",
        "/home/dev/work/realtime-feed",
        (
            "I got accepted to speak at PyCon Italia in May! the talk is about our websocket "
            "fan-out. can you help me outline it?",
            "Congratulations! An outline for the fan-out talk: the problem (one price tick "
            "to 50k sockets), the first naive version, what broke at scale, the pub/sub "
            "design with per-node queues, the numbers before and after, and lessons learnt. "
            "Thirty minutes fits five sections.",
            "nice. my manager Dana said I can take the Friday after the conference off too",
            "Then you get a long weekend in Florence after the talk. Shall I draft the slides "
            "for the first two sections?",
            "yes, and add a slide with the latency graph from the load test",
            "The draft is in talks/pycon-italia/slides.md with the latency graph from the "
            "load test on slide 7: p99 went from 800 ms to 45 ms.",
        ),
        (
            ("which conference did I get accepted to?", 0),
            ("what is my talk about?", 0),
            ("what did Dana say about the day after the conference?", 2),
            ("which slide has the latency graph?", 5),
            ("how much did p99 improve in the load test numbers for the talk?", 5),
        ),
    ),
    Conversation(
        "coffee-machine",
        "/home/dev/work/cms",
        (
            "the office coffee machine broke again, third time this month. anyway: the image "
            "upload in the cms is slow, can you look?",
            "The upload is slow because every image is resized to six sizes synchronously "
            "before the request returns. I moved the resizing to a background job, so the "
            "upload returns as soon as the original is stored.",
            "cool. btw Lena from marketing asked if the cms can schedule posts",
            "Scheduling posts is a small change: a `publish_at` column and a job that "
            "publishes due posts every minute. I can do it this week if Lena's team needs it.",
            "she wants it for the product launch on the 3rd of next month",
            "Then I'll have post scheduling ready well before the launch on the 3rd and ask "
            "Lena to try it on staging first.",
        ),
        (
            ("what broke in the office?", 0),
            ("why was the image upload slow in the cms?", 1),
            ("what did Lena from marketing ask for?", 2),
            ("when is the product launch?", 4),
            ("how would post scheduling work?", 3),
        ),
    ),
    Conversation(
        "postgres-upgrade",
        "/home/dev/work/billing-service",
        (
            "when should we do the postgres 16 upgrade for billing? I'd rather not do it "
            "during month end",
            "The upgrade should avoid the last five days of the month. The 12th fits: "
            "it's a Tuesday, traffic is lowest overnight, and pg_upgrade with --link takes "
            "under ten minutes on a database this size.",
            "ok the 12th. I'll tell Samir, he's on call that week",
            "Good. I wrote the upgrade checklist for Samir: snapshot first, pg_upgrade "
            "--check, then the real run, then ANALYZE, since statistics are not carried over.",
            "by the way Samir just had a baby girl, so maybe not him",
            "Congratulations to Samir! Then whoever covers his on-call shift should run the "
            "upgrade; the checklist doesn't assume any particular person.",
        ),
        (
            ("when did we schedule the postgres upgrade?", 1),
            ("which day did we pick for the database upgrade?", 1),
            ("who was on call that week?", 2),
            ("what news did Samir have?", 4),
            ("why do we need to run ANALYZE after pg_upgrade?", 3),
        ),
    ),
    Conversation(
        "dog-walker",
        "/Users/sam/code/ml-pipeline",
        (
            "I have to leave at 4 today, the dog walker cancelled and Biscuit needs to go out. "
            "can we get the feature store fix in before that?",
            "Yes. The feature store returns stale values because the cache key ignores the "
            "feature version; I added the version to the key and a test that bumps it.",
            "thanks. what breed is a good fit for apartments by the way, my neighbour is asking",
            "For apartments, people often suggest calm, smaller breeds like a Cavalier King "
            "Charles spaniel or a greyhound, which is surprisingly lazy indoors.",
        ),
        (
            ("what's my dog's name?", 0),
            ("why did I have to leave early?", 0),
            ("why was the feature store returning stale values?", 1),
            ("which breeds did you suggest for an apartment?", 3),
        ),
    ),
    Conversation(
        "quarterly-goals",
        "/home/dev/work/infra.k8s",
        (
            "let's write down the infra goals for next quarter: cut the cloud bill by 20%, "
            "move logging to Loki, and get every service on autoscaling",
            "The infra goals for next quarter: cloud bill down 20% (spot nodes for batch work "
            "and rightsizing), logging moved from Elasticsearch to Loki, and horizontal "
            "autoscaling on every service. I put them in docs/goals/q3.md with owners.",
            "who owns the loki move?",
            "Priya owns the Loki move; she ran the trial on the staging cluster last month "
            "and already has the dashboards ported.",
            "Priya also said she's training for a half marathon in October, we should not "
            "give her the on-call rotation that month",
            "Noted: no on-call for Priya in October while she trains for the half marathon. "
            "I moved her shift to November in the rota.",
        ),
        (
            ("what are our goals for next quarter?", 1),
            ("how much did we want to cut the cloud bill by?", 1),
            ("who is in charge of moving logs to Loki?", 3),
            ("what is Priya training for?", 4),
            ("why did we move Priya's on-call shift?", 5),
        ),
    ),
    Conversation(
        "interview-feedback",
        "/home/dev/work/accounts",
        (
            "I interviewed a frontend candidate today, Jonas. strong on react, weak on "
            "accessibility. help me write the feedback",
            "Feedback for Jonas: strong React fundamentals, explained state management "
            "clearly and wrote clean components; gaps in accessibility (no keyboard "
            "navigation, no labels on form fields). Recommendation: hire for a mid-level "
            "role with an accessibility mentor.",
            "good. the other candidate, Mei, was the opposite: great on a11y, less react",
            "Feedback for Mei: excellent accessibility knowledge, found every issue in the "
            "test page; React experience is shallower but she learns fast. Recommendation: "
            "hire, she'd raise the team's accessibility bar.",
        ),
        (
            ("what was Jonas weak at?", 1),
            ("what did I think of the candidate who was great at accessibility?", 3),
            ("which interviewee was strong on react?", 0),
        ),
    ),
    Conversation(
        "moving-house",
        "/home/dev/src/go-gateway",
        (
            "I'm moving house next weekend so I'll be slow to answer. the gateway timeouts "
            "can wait until after",
            "No problem. For when you're back: the gateway timeouts come from the upstream "
            "client using the default 30 s timeout while the gateway gives up at 10 s, so "
            "the client keeps waiting on a request the gateway already dropped.",
            "the new flat is closer to the office, 10 minutes by bike instead of an hour on "
            "the train",
            "Ten minutes by bike instead of an hour on the train gives you back almost two "
            "hours a day. Good luck with the move!",
        ),
        (
            ("when was I moving house?", 0),
            ("how far is the new flat from the office?", 2),
            ("what caused the gateway timeouts?", 1),
        ),
    ),
    Conversation(
        "book-club",
        "/home/dev/work/reports-service",
        (
            "our team book club is reading Designing Data-Intensive Applications, I'm at the "
            "chapter on replication. quick question: is our reports db using sync or async "
            "replication?",
            "The reports database uses asynchronous streaming replication to one replica "
            "(`synchronous_commit = on` but `synchronous_standby_names` is empty), so a "
            "failover can lose the last few transactions.",
            "hm. is that a problem for the reports?",
            "For reports it's acceptable: they're rebuilt from the ledger nightly, so losing "
            "a few seconds of writes in a failover only delays them, it can't corrupt them.",
            "next month the book club picks something lighter, someone suggested The Phoenix "
            "Project",
            "The Phoenix Project is a good light pick after DDIA: a novel about a failing IT "
            "project, easy to read in a couple of evenings.",
        ),
        (
            ("which book was the team reading?", 0),
            ("is the reports database replication synchronous or asynchronous?", 1),
            ("could a failover lose data in the reports database?", 3),
            ("what did someone suggest for next month's book?", 4),
        ),
    ),
    Conversation(
        "weekend-hackathon",
        "/home/dev/projects/memtui",
        (
            "this weekend I want to hack on a small side project: a CLI that tells me which "
            "of my github repos have stale dependencies. what stack would you use?",
            "For a dependency-staleness CLI I'd use Python with `httpx` for the GitHub API, "
            "`packaging` to compare versions, and `rich` for the table; it reads each repo's "
            "lockfile and compares it with the latest releases on PyPI and npm.",
            "call it 'rusty', since everything in my repos is rusting",
            "`rusty` it is. I made a skeleton with a `rusty scan OWNER` command that lists "
            "repos and, for each, the number of outdated packages and the oldest one.",
        ),
        (
            ("what side project did I want to build on the weekend?", 0),
            ("what did I name the dependency checker?", 2),
            ("which libraries did you suggest for the CLI?", 1),
        ),
    ),
    Conversation(
        "slow-ci-cache",
        "/home/dev/work/web-dashboard",
        (
            "CI takes 18 minutes again. wasn't the cache supposed to fix that?",
            "The cache isn't being restored: the key includes the hash of `pnpm-lock.yaml`, "
            "but the lockfile is regenerated in CI before the restore step, with a new "
            "timestamp comment, so the key never matches. I moved the restore before any "
            "install and the pipeline is back to 6 minutes.",
            "nice. I'm going to the dentist at 3, so review the PR and merge if green",
            "I reviewed it and merged it once the checks went green; the main branch build "
            "took 5 min 40 s with the warm cache.",
        ),
        (
            ("why wasn't the CI cache working?", 1),
            ("how long did CI take after the cache fix?", 1),
            ("where was I going at 3?", 2),
        ),
    ),
    Conversation(
        "birthday-gift",
        "/home/dev/work/payments-api",
        (
            "it's my dad's 70th birthday next week and he loves birdwatching. any gift ideas? "
            "then let's look at the refunds bug",
            "For a birdwatcher turning 70: a good pair of 8x42 binoculars, a field guide for "
            "your region, or a bird feeder camera so he can watch from the kitchen. Now the "
            "refunds: what is going wrong?",
            "partial refunds show the full amount on the customer's statement",
            "The statement template prints `charge.amount` instead of `refund.amount`, so "
            "every refund line shows the original charge. I fixed the template and added a "
            "test with a partial refund of 12.50 on a 40.00 charge.",
        ),
        (
            ("what does my dad like to do?", 0),
            ("what gift ideas did you have for my father?", 1),
            ("how old is my dad turning?", 0),
            ("why did partial refunds show the wrong amount?", 3),
        ),
    ),
    Conversation(
        "api-versioning",
        "/home/dev/src/go-gateway",
        (
            "we need a policy for api versioning before the public launch. header or url?",
            "I'd version in the URL (`/v1/...`): it's visible in logs and docs, easy to route "
            "in the gateway, and clients can't get it wrong silently. We promise 12 months "
            "of support for a version after its successor ships.",
            "ok. Kenji from the partner team will hate it, he prefers headers",
            "Kenji's concern is usually about URLs changing; the 12-month overlap answers "
            "that. I can write the policy so he can comment before it's final.",
        ),
        (
            ("did we decide on header or url versioning?", 1),
            ("how long do we support an old api version?", 1),
            ("who prefers header versioning?", 2),
        ),
    ),
    Conversation(
        "standup-time",
        "/home/dev/work/infra.k8s",
        (
            "the team voted to move standup from 9:30 to 10:15 because half of us drop kids "
            "at school. can you update the calendar bot?",
            "Updated the calendar bot's config: standup is now at 10:15 on weekdays, and the "
            "reminder goes out at 10:05 in the #team channel.",
            "also Friday standup is async now, just a thread",
            "Friday is async now: the bot posts a thread at 10:15 asking for yesterday, today "
            "and blockers, and there's no call.",
        ),
        (
            ("what time is standup now?", 1),
            ("why did we move the standup?", 0),
            ("what happens on Fridays instead of the call?", 3),
        ),
    ),
    Conversation(
        "home-network",
        "/home/dev/projects/memtui",
        (
            "my home wifi drops every evening around 8, and video calls freeze. any idea?",
            "Around 8 pm the neighbours' networks get busy; if your router is on an automatic "
            "2.4 GHz channel it may be hopping. Put the laptop on 5 GHz, fix the channel "
            "(36 or 149), and check whether the router's firmware has an update.",
            "switched to 5ghz, seems better. my kid's tablet still lags though",
            "The tablet may only support 2.4 GHz; a fixed channel 1, 6 or 11, whichever is "
            "least crowded in a wifi scanner app, should help it too.",
        ),
        (
            ("why did my wifi keep dropping in the evening?", 1),
            ("what channel did you suggest for 5 GHz?", 1),
            ("what about the tablet that still lagged?", 3),
        ),
    ),
    Conversation(
        "error-budget",
        "/home/dev/work/payments-api",
        (
            "we burned through the error budget for checkout this month. what do we do now?",
            "With the error budget spent, the policy is a feature freeze for checkout until "
            "the 30-day availability is back above 99.9%: only reliability work ships. "
            "Most of the burn came from the two card-processor outages on the 4th and 11th.",
            "ok, freeze it is. tell Olu, he leads the checkout team",
            "I sent Olu the summary: freeze until availability recovers, the two outages "
            "as the main cause, and a proposal to add a second card processor as fallback.",
        ),
        (
            ("what happens when the error budget runs out?", 1),
            ("what used up most of the checkout error budget?", 1),
            ("who leads the checkout team?", 2),
            ("what did you propose as a fallback?", 3),
        ),
    ),
    Conversation(
        "learning-rust",
        "/home/dev/src/go-gateway",
        (
            "I've started learning rust in the evenings, doing advent of code in it. the "
            "borrow checker is killing me",
            "The borrow checker gets easier once you stop holding references across "
            "mutations: clone small things freely at first, and reach for indices instead of "
            "references into a Vec you're changing. Advent of Code is a good way to learn it.",
            "which book should I read alongside?",
            'The Rust Programming Language ("the book") first, then Rust for Rustaceans '
            "once the basics feel natural.",
        ),
        (
            ("what language am I learning in the evenings?", 0),
            ("which book did you recommend for rust?", 3),
            ("any tips for the borrow checker?", 1),
        ),
    ),
    # Everyday conversations with nothing about work in them (issue 20: "what did my sister
    # say about the new job?"): the person talks, Claude answers, no tool is called.
    Conversation(
        "sister-new-job",
        "/home/dev/notes",
        (
            "my sister Lena just got the offer from the hospital in Leeds! she starts as head "
            "nurse of the children's ward in March",
            "That's wonderful news for Lena. Running a children's ward is a big step up; the "
            "first months are mostly about getting to know the team and the rota.",
            "she's nervous about moving away from mum though, mum had the hip operation in "
            "autumn and still can't drive",
            "That worry makes sense. Leeds is about two hours by train from your mum, so Lena "
            "could visit at weekends, and a neighbour or a community transport service could "
            "cover the hospital check-ups until your mum can drive again.",
        ),
        (
            ("what did my sister say about the new job?", 0),
            ("where is Lena going to work?", 0),
            ("why is she worried about leaving?", 2),
            ("how could Lena still look after our mother?", 3),
        ),
    ),
    Conversation(
        "half-marathon",
        "/home/dev/notes",
        (
            "I signed up for the Bristol half marathon in October. never run more than 10k",
            "Plenty of time. A 14-week plan works well from 10k: three runs a week, one of "
            "them a long slow run that grows by about a kilometre each week, and an easy week "
            "every fourth week so your legs recover.",
            "my left knee hurts after the long runs, on the outside",
            "Pain on the outside of the knee after long runs is often the iliotibial band. "
            "Cut the long run back for a week, add hip and glute strengthening twice a week, "
            "and check your shoes: if they have more than 800 km on them, replace them.",
        ),
        (
            ("which race did I enter?", 0),
            ("how should I build up my training?", 1),
            ("what did you say about my sore knee?", 3),
            ("when should I get new trainers?", 3),
        ),
    ),
    Conversation(
        "kitchen-renovation",
        "/home/dev/notes",
        (
            "we're finally redoing the kitchen. Tom wants dark green cabinets, I want white "
            "oak. we argue about it every evening",
            "Both can work together: dark green lower cabinets with white oak open shelves or "
            "an oak worktop is a popular mix, and it keeps the room from feeling too dark.",
            "the builder quoted 18 thousand and says six weeks, starting after Easter",
            "For a full kitchen that quote is in the usual range. Ask for a written schedule "
            "with the plumbing and electrics dates, keep 10 to 15 percent aside for surprises "
            "behind the old units, and plan where you will cook for those six weeks.",
        ),
        (
            ("what colour does my partner want?", 0),
            ("how did you suggest we settle the cabinet argument?", 1),
            ("how much will the renovation cost?", 2),
            ("how much money should we keep in reserve?", 3),
        ),
    ),
    Conversation(
        "school-choice",
        "/home/dev/notes",
        (
            "we have to pick a secondary school for Maya by the end of the month. the closest "
            "one is a ten minute walk but the one with the good music department is across "
            "town",
            "Maya's age is when a long commute starts to weigh: forty minutes each way adds up "
            "to six hours a week. If music matters most to her, ask whether the near school "
            "lets pupils join the county youth orchestra or take lessons at school.",
            "she plays the cello and really wants to keep going",
            "Then ask both schools how many cello pupils they have, whether there is a string "
            "ensemble, and who pays for lessons. Visiting on an open evening with Maya will "
            "tell you more than the league tables.",
        ),
        (
            ("which school is nearer to home?", 0),
            ("what instrument does my daughter play?", 2),
            ("what should we ask the schools about music?", 3),
            ("is a long journey to school a problem?", 1),
        ),
    ),
)


def _id(*parts: object) -> str:
    return str(uuid.uuid5(NS, "/".join(map(str, parts))))


def turn_uuid(conversation: Conversation, index: int) -> str:
    """The uuid of one of the conversation's own turns (filler turns get other ids)."""
    return _id(conversation.key, "turn", index)


def questions() -> list[tuple[str, str]]:
    """Every (question, answering turn's uuid)."""
    return [(q, turn_uuid(c, i)) for c in CONVERSATIONS for q, i in c.questions]


def _iso(epoch_ms: int) -> str:
    moment = datetime.fromtimestamp(epoch_ms / 1000, UTC)
    return moment.isoformat(timespec="milliseconds").replace("+00:00", "Z")


def conversation_lines(
    conversation: Conversation, start_ms: int, seed: int
) -> list[dict[str, Any]]:
    """The session's records: its turns, with filler pairs between them."""
    rng = random.Random(f"{seed}/{conversation.key}")
    session = _id(conversation.key, "session")
    turns: list[tuple[str, str]] = []  # (uuid, text), alternating person / Claude
    for pair in range(0, len(conversation.turns), 2):
        for n in range(rng.randint(1, 3)):
            start = 2 * rng.randrange(len(FILLER) // 2)
            turns.append((_id(conversation.key, "filler", pair, n, 0), FILLER[start]))
            turns.append((_id(conversation.key, "filler", pair, n, 1), FILLER[start + 1]))
        for i in range(pair, min(pair + 2, len(conversation.turns))):
            turns.append((turn_uuid(conversation, i), conversation.turns[i]))
    lines: list[dict[str, Any]] = []
    for n, (uid, text) in enumerate(turns):
        head = {
            "parentUuid": lines[-1]["uuid"] if lines else None,
            "isSidechain": False,
            "userType": "external",
            "cwd": conversation.cwd,
            "sessionId": session,
            "version": VERSION,
            "gitBranch": "main",
            "uuid": uid,
            "timestamp": _iso(start_ms + 60_000 * n),
        }
        if n % 2 == 0:
            lines.append({**head, "type": "user", "message": {"role": "user", "content": text}})
        else:
            message = {
                "model": "claude-sonnet-4-5-20250929",
                "id": "msg_01" + _id(uid, "msg").replace("-", "")[:22],
                "type": "message",
                "role": "assistant",
                "content": [{"type": "text", "text": text}],
                "stop_reason": "end_turn",
                "stop_sequence": None,
                "usage": {"input_tokens": 4, "output_tokens": 120},
            }
            lines.append({**head, "type": "assistant", "message": message})
    return lines


def add_conversations(projects: Path, seed: int = 0) -> None:
    """Write each conversation as a session file in its project's folder (every run)."""
    manifest = projects / MANIFEST
    if manifest.exists():
        for old in json.loads(manifest.read_text()):
            (projects / old).unlink(missing_ok=True)
    written = []
    first = 1_738_368_000_000  # 2025-02-01
    for i, conversation in enumerate(CONVERSATIONS):
        folder = corpus.encode_project_dir(conversation.cwd)
        rel = f"{folder}/{_id(conversation.key, 'session')}.jsonl"
        path = projects / rel
        path.parent.mkdir(parents=True, exist_ok=True)
        lines = conversation_lines(conversation, first + i * 6 * 86_400_000 + 9_000_000, seed)
        path.write_text("".join(json.dumps(r, ensure_ascii=False) + "\n" for r in lines))
        written.append(rel)
    manifest.write_text(json.dumps(written))
