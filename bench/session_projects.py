"""A developer's Claude Code sessions on one codebase over weeks, for bench/session_set.py:
each session a task or two, with the everyday talk of such sessions around them. Questions
are what a developer or Claude asks later: "when did we fix...", "why did we pick...".
Written for memtui."""

from __future__ import annotations

from datetime import date

from session_set import Event, Story

E = Event

LEDGER = Story(
    key="ledger-api",
    cwd="/home/dev/work/ledger-api",
    people=("user", "Claude"),
    named=False,
    start=date(2025, 3, 3),
    sessions=15,
    held_back=False,
    kind="project",
    themes=(
        (
            "run the test suite again please",
            "ok commit that with a sensible message",
            "can you check the CI output, it's red again",
            "let's continue where we left off yesterday",
            "looks good, push it to the branch",
            "can you update the changelog for this?",
            "great, thanks. that's it for today",
            "the linter is complaining about the imports, fix it",
            "open a pull request for this",
            "hmm, let me think about it",
        ),
        (
            "All 412 tests pass. The slowest is the reconciliation suite at 38 seconds.",
            "Committed on the feature branch with a message describing the change.",
            "CI failed on the lint step only: an unused import in ledger/api/views.py. Fixed "
            "and pushed.",
            "Picking up from yesterday: the branch is rebased on main and the tests pass.",
            "Pushed. The pull request's checks are running now.",
            "I added an entry under Unreleased in CHANGELOG.md.",
            "The imports are sorted now and ruff is clean.",
            "Opened the pull request and linked the issue in its description.",
            "I ran the migrations on a copy of the staging database first; they apply cleanly.",
            "Let me know when you've decided and I'll make the change.",
        ),
    ),
    events=(
        E(
            "pdf-lib",
            0,
            0,
            (
                "we need PDF invoices. what library should we use, reportlab or weasyprint?",
                "I'd use WeasyPrint: the invoices are already HTML templates, WeasyPrint renders "
                "them with CSS for print, and page headers with the invoice number are easy. "
                "ReportLab would mean drawing every line by hand. I added weasyprint to the "
                "dependencies and a render_invoice_pdf function in ledger/invoices/pdf.py.",
            ),
        ),
        E(
            "tz-bug",
            1,
            0,
            (
                "customers in Sydney say their invoices are dated the day before. can you look?",
                "The invoice date was computed from the UTC timestamp, so anything issued before "
                "11:00 in Sydney got the previous day. issue_invoice now takes the customer's "
                "timezone from their billing profile and formats the date in it; I added tests for "
                "Sydney and Los Angeles around midnight.",
            ),
        ),
        E(
            "idempotency",
            2,
            0,
            (
                "the payment webhook sometimes creates the same ledger entry twice",
                "The provider retries the webhook when we answer slowly, and each retry inserted a "
                "new entry. I added an idempotency key: the event id is stored with a unique "
                "constraint on ledger_entries.provider_event_id, and a duplicate returns 200 "
                "without writing.",
            ),
        ),
        E(
            "currency",
            3,
            0,
            (
                "we store amounts as floats, I've seen 0.30000000000000004 in an export",
                "I changed every amount column to integer minor units (cents) with a currency "
                "code beside it, and a migration converts the existing floats by rounding half to "
                "even. Money is formatted only at the edges, in ledger/money.py.",
            ),
        ),
        E(
            "slow-report",
            4,
            0,
            (
                "the monthly revenue report takes 40 seconds now",
                "The report ran one query per customer (an N+1 over 3,800 customers). It's now one "
                "grouped query with a window function, and I added an index on ledger_entries "
                "(account_id, posted_at). The report takes 1.2 seconds on the staging copy.",
            ),
        ),
        E(
            "auth",
            5,
            0,
            (
                "let's replace the API keys with OAuth client credentials for partners",
                "I added the client credentials flow with django-oauth-toolkit: partners get a "
                "client id and secret, tokens last one hour, and the old API keys keep working "
                "until June 30th behind a deprecation header.",
            ),
        ),
        E(
            "rounding-bug",
            6,
            0,
            (
                "the VAT on multi line invoices is off by a cent sometimes",
                "VAT was rounded per line and then summed, while the tax authority expects the "
                "total rounded once. calculate_vat now sums the exact line amounts and rounds the "
                "total half up; the invoice lines show their share but the total is what's "
                "declared.",
            ),
        ),
        E(
            "celery",
            7,
            0,
            (
                "sending invoice emails blocks the request for seconds",
                "I moved the email sending to a Celery task on the existing Redis broker: the "
                "request returns at once and send_invoice_email retries three times with backoff "
                "if the mail server refuses.",
            ),
        ),
        E(
            "flaky",
            8,
            0,
            (
                "test_month_end_close is flaky on CI, fails maybe one run in five",
                "It depended on the order of rows with the same posted_at timestamp. The close now "
                "orders by (posted_at, id), and the test freezes time with time_machine instead of "
                "sleeping. Fifty runs in a row pass.",
            ),
        ),
        E(
            "partial-refunds",
            9,
            0,
            (
                "we need partial refunds, finance wants to refund single invoice lines",
                "Refunds now reference invoice lines: a credit note holds one or more lines with "
                "their amounts, and the remaining refundable amount is checked in a transaction "
                "with "
                "SELECT FOR UPDATE so two refunds can't exceed the total.",
            ),
        ),
        E(
            "audit-log",
            10,
            0,
            (
                "auditors want to know who changed what on every ledger entry",
                "I added an append-only audit_log table written by a trigger on ledger_entries: "
                "who (the request's user id, set per transaction), when, and the old and new row "
                "as "
                "JSON. The table has no UPDATE or DELETE grant for the app role.",
            ),
        ),
        E(
            "deadlock",
            11,
            0,
            (
                "we got a deadlock error in production during the nightly close",
                "The nightly close and the refund endpoint locked accounts in different orders. "
                "Both "
                "now lock accounts sorted by id before touching entries, and the close retries "
                "once "
                "on a deadlock.",
            ),
        ),
        E(
            "pg-upgrade",
            12,
            0,
            (
                "plan the Postgres upgrade from 13 to 16",
                "Plan: a logical replica on Postgres 16, fed by publication from 13, checked with "
                "row counts per table; then a five minute write freeze, switch the DNS name, and "
                "keep 13 as a fallback for a week. pg_upgrade in place was ruled out: the database "
                "is 600 GB and we can't afford the downtime.",
            ),
        ),
        E(
            "rate-limit",
            13,
            0,
            (
                "a partner hammered the invoices endpoint with 500 requests a second",
                "I added rate limiting per OAuth client: 50 requests per second with a burst of "
                "100, "
                "counted in Redis, and a 429 with a Retry-After header beyond it.",
            ),
        ),
        E(
            "dunning",
            14,
            0,
            (
                "finance wants automatic reminders for unpaid invoices",
                "Dunning is a daily Celery beat task: a first reminder at 7 days overdue, a second "
                "at 21, and at 45 days the account is flagged for finance instead of sending a "
                "third "
                "email.",
            ),
        ),
    ),
    echoes=(
        ("pdf-lib", "the PDF invoice footer needs the company registration number"),
        ("pdf-lib", "can you make the invoice PDF use the new logo?"),
        ("tz-bug", "add a test for New Zealand daylight saving on invoice dates"),
        ("idempotency", "the webhook handler logs are too noisy, tone them down"),
        ("currency", "the CSV export should show amounts with two decimals"),
        ("slow-report", "can the revenue report be filtered by currency?"),
        ("auth", "a partner asks how to rotate their OAuth client secret"),
        ("rounding-bug", "finance asked for a VAT summary per month in the report"),
        ("celery", "the celery worker restarted overnight, check the logs"),
        ("flaky", "CI is slow today, the month end tests take forever"),
        ("partial-refunds", "the credit note PDF needs the original invoice number"),
        ("audit-log", "can we export the audit log for the auditors as CSV?"),
        ("pg-upgrade", "check how much disk the logical replica uses"),
        ("rate-limit", "a partner says they hit 429s during their nightly sync"),
    ),
    questions=(
        ("why did we pick weasyprint for the PDF invoices?", ("pdf-lib.1",)),
        ("when did we fix the Sydney invoice date bug?", ("tz-bug.1",)),
        ("why were invoices dated the day before for some customers?", ("tz-bug.1",)),
        ("how did we stop duplicate ledger entries from webhook retries?", ("idempotency.1",)),
        ("how are money amounts stored now instead of floats?", ("currency.1",)),
        ("what made the monthly revenue report so slow?", ("slow-report.1",)),
        ("which index did we add for the revenue report?", ("slow-report.1",)),
        ("when do the old partner API keys stop working?", ("auth.1",)),
        ("how long do partner OAuth tokens last?", ("auth.1",)),
        ("why was VAT off by a cent on some invoices?", ("rounding-bug.1",)),
        ("how do invoice emails get sent now?", ("celery.1",)),
        ("what was wrong with test_month_end_close?", ("flaky", "flaky.1")),
        ("how do we prevent two refunds going over the total?", ("partial-refunds.1",)),
        ("where do we record who changed a ledger entry?", ("audit-log.1",)),
        ("what caused the deadlock in the nightly close?", ("deadlock.1",)),
        ("what is the plan for the postgres 16 upgrade?", ("pg-upgrade.1",)),
        ("why didn't we use pg_upgrade in place?", ("pg-upgrade.1",)),
        ("what rate limit did we set for partners?", ("rate-limit.1",)),
        ("when do overdue invoice reminders go out?", ("dunning.1",)),
        ("what happens to accounts 45 days overdue?", ("dunning.1",)),
        ("the session where we added partial refunds", ("partial-refunds",)),
        ("which session set up OAuth client credentials?", ("auth",)),
        ("how did we fix the flaky test on CI?", ("flaky.1",)),
        ("did we add tests for the timezone fix?", ("tz-bug.1",)),
        ("where does money formatting happen?", ("currency.1",)),
        ("how many retries for the invoice email task?", ("celery.1",)),
        ("what does the audit log store for each change?", ("audit-log.1",)),
        ("why did the webhook create the entry twice?", ("idempotency.1",)),
    ),
)

TRAILMAP = Story(
    key="trailmap-app",
    cwd="/Users/kim/code/trailmap",
    people=("user", "Claude"),
    named=False,
    start=date(2025, 5, 12),
    sessions=14,
    held_back=True,
    kind="project",
    themes=(
        (
            "start the metro bundler and the ios simulator",
            "run the jest tests",
            "commit and push",
            "the android build is broken again, can you check",
            "continue with the todo list from last time",
            "looks good to me",
            "bump the version and update the release notes",
            "fix the typescript errors first",
            "ok that's enough for today, summarise what we did",
            "can you clean up the console warnings",
        ),
        (
            "Metro is running on port 8081 and the iOS simulator has the app open.",
            "All 186 Jest tests pass; the map snapshot tests take most of the time.",
            "Committed and pushed to the current branch.",
            "The Android build failed on a Gradle cache issue; a clean build fixed it.",
            "Continuing the todo list: two items left from last session.",
            "The TypeScript errors are fixed: tsc reports no errors now.",
            "Bumped the version to the next minor and added release notes.",
            "Today we finished the open items, the tests pass and the branch is pushed.",
            "The console warnings came from deprecated props; they're gone now.",
            "Great, let me know what you'd like to do next.",
        ),
    ),
    events=(
        E(
            "map-lib",
            0,
            0,
            (
                "which map library should we use for the trail maps, react-native-maps or mapbox?",
                "I'd go with MapLibre through @maplibre/maplibre-react-native: it draws vector "
                "tiles offline, which hikers need without signal, and unlike Mapbox it has no "
                "per-user pricing. react-native-maps can't do offline vector tiles.",
            ),
        ),
        E(
            "offline",
            1,
            0,
            (
                "hikers want to download a region's map before the hike",
                "Offline packs are downloaded per region with MapLibre's offline manager, capped "
                "at "
                "zoom 15 to keep a typical national park under 150 MB, and the download resumes "
                "after the app is killed.",
            ),
        ),
        E(
            "gps-drain",
            2,
            0,
            (
                "users say recording a hike drains the battery in three hours",
                "Location updates ran at the highest accuracy every second. Recording now uses "
                "balanced accuracy with a 10 metre distance filter and pauses updates when the "
                "phone "
                "is still; a test hike used 40 percent less battery.",
            ),
        ),
        E(
            "elevation",
            3,
            0,
            (
                "the elevation gain numbers are way too high, people say 2000 m for a flat walk",
                "GPS altitude jitters by several metres, and every wiggle was added as gain. The "
                "track is now smoothed with a moving median over 9 points and only climbs of more "
                "than 3 metres count. The flat test walk now shows 38 m instead of 2,100.",
            ),
        ),
        E(
            "crash-android",
            4,
            0,
            (
                "crash reports on Android 14 when opening the photo picker",
                "Android 14 requires the READ_MEDIA_VISUAL_USER_SELECTED permission for partial "
                "photo access, and we requested only READ_MEDIA_IMAGES. I switched to the system "
                "photo picker, which needs no permission at all, and the crash is gone.",
            ),
        ),
        E(
            "sync",
            5,
            0,
            (
                "sync of recorded hikes to the server sometimes loses points",
                "Uploads were sent as one request and a timeout dropped the whole track. Tracks "
                "now "
                "upload in chunks of 500 points with a sequence number, and the server reassembles "
                "them; a failed chunk retries alone.",
            ),
        ),
        E(
            "dark-mode",
            6,
            0,
            (
                "add a dark mode, the map is blinding at night",
                "Dark mode follows the system setting with a toggle in settings, and the map "
                "switches to a dark MapLibre style with dimmed trail colours; the theme lives in a "
                "ThemeContext.",
            ),
        ),
        E(
            "i18n",
            7,
            0,
            (
                "we launch in Germany and Japan next month, we need translations",
                "I set up i18next with react-i18next: strings moved to locales/en.json, de.json "
                "and ja.json, units follow the locale (km everywhere, with feet for elevation only "
                "in the US), and dates use Intl.DateTimeFormat.",
            ),
        ),
        E(
            "startup",
            8,
            0,
            (
                "cold start takes almost four seconds on older Androids",
                "Most of it was loading every screen at startup and parsing a 3 MB trails JSON. "
                "Screens are now lazy, the trails moved to SQLite via expo-sqlite, and Hermes is "
                "on: "
                "cold start is 1.6 seconds on the Pixel 4a.",
            ),
        ),
        E(
            "sos",
            9,
            0,
            (
                "add an SOS button that shares your location by SMS",
                "The SOS button needs a long press of two seconds to avoid pocket presses, then "
                "opens the SMS composer with the coordinates and a map link for the emergency "
                "contact set in settings.",
            ),
        ),
        E(
            "memory-leak",
            10,
            0,
            (
                "the app gets slower the longer a hike is recorded",
                "Every location update re-rendered the whole track as a new GeoJSON object, and "
                "the "
                "map kept the old sources. The track is now one source updated in place, and "
                "points "
                "are simplified with Douglas-Peucker beyond 2,000.",
            ),
        ),
        E(
            "store-reject",
            11,
            0,
            (
                "Apple rejected the build, something about background location",
                "The review said our background location purpose string didn't explain why. I "
                "rewrote NSLocationAlwaysAndWhenInUseUsageDescription to say it records your hike "
                "with the screen off, and resubmitted; it was approved the next day.",
            ),
        ),
        E(
            "subscriptions",
            12,
            0,
            (
                "let's add the premium subscription for offline maps",
                "Subscriptions go through RevenueCat: a monthly and a yearly plan, offline packs "
                "need premium, and a grace period of 16 days keeps the downloaded maps if a "
                "payment "
                "fails.",
            ),
        ),
        E(
            "weather",
            13,
            0,
            (
                "show the weather forecast for the trailhead",
                "The trail page now shows a three day forecast from Open-Meteo for the trailhead's "
                "coordinates, cached for an hour, with a warning icon for thunderstorms.",
            ),
        ),
    ),
    echoes=(
        ("map-lib", "the map style looks washed out on Android, tweak the colours"),
        ("offline", "offline downloads should show progress in the notification"),
        ("gps-drain", "users ask for a setting to record more often on runs"),
        ("elevation", "add elevation to the hike summary screen"),
        ("crash-android", "the photo thumbnails load slowly in the hike gallery"),
        ("sync", "the server logs show a few duplicate track uploads"),
        ("dark-mode", "the settings screen looks off in dark mode"),
        ("i18n", "a German user reports a truncated button label"),
        ("startup", "the splash screen flickers on iOS"),
        ("sos", "let users pick the emergency contact from their contacts"),
        ("memory-leak", "long hikes still feel a bit sluggish on old iPhones"),
        ("subscriptions", "add a restore purchases button in settings"),
    ),
    questions=(
        ("why did we choose MapLibre over Mapbox?", ("map-lib.1",)),
        ("how big can an offline map pack get?", ("offline.1",)),
        ("how did we fix the battery drain while recording?", ("gps-drain.1",)),
        ("why was the elevation gain so high?", ("elevation.1",)),
        ("what caused the photo picker crash on Android 14?", ("crash-android.1",)),
        ("how are hike tracks uploaded to the server now?", ("sync.1",)),
        ("where does the dark mode theme live?", ("dark-mode.1",)),
        ("which library did we use for translations?", ("i18n.1",)),
        ("how did we make cold start faster?", ("startup.1",)),
        ("how does the SOS button avoid pocket presses?", ("sos.1",)),
        ("why did the app slow down on long hikes?", ("memory-leak.1",)),
        ("why did Apple reject the build?", ("store-reject.1",)),
        ("which service handles premium subscriptions?", ("subscriptions.1",)),
        ("where does the trail weather forecast come from?", ("weather.1",)),
        ("what grace period did we give for failed payments?", ("subscriptions.1",)),
        ("the session where we smoothed the GPS altitude", ("elevation",)),
        ("when did we add the Japanese translations?", ("i18n",)),
        ("what is the cold start time on the Pixel 4a now?", ("startup.1",)),
        ("which units do we show for elevation in the US?", ("i18n.1",)),
        ("why can't react-native-maps do what we need?", ("map-lib.1",)),
        ("how many points per chunk when syncing tracks?", ("sync.1",)),
        ("what does the SOS text message contain?", ("sos.1",)),
        ("how long is the forecast cached?", ("weather.1",)),
        ("what did we change in the location purpose string?", ("store-reject.1",)),
    ),
)

PROJECTS: tuple[Story, ...] = (LEDGER, TRAILMAP)
