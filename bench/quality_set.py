"""Labelled needles for the retrieval-quality benchmark (bench/quality.py).

Each needle is one short Claude Code exchange about a specific decision, bug or finding. The
message that holds the fact (Claude's answer or, for decisions the person states, their prompt)
is the target. Two queries look for it:

- `lexical`: what someone types while the subject is fresh, sharing key words with the target;
- `paraphrase`: what someone asks months later, in their own words, sharing almost no content
  words with the target (`python bench/quality.py --check` lists the words they do share).

The haystack (bench/corpus.py) talks about the same subjects (auth, caching, flaky tests,
migrations...), so a needle has to be told apart from look-alikes, not just found.
"""

from __future__ import annotations

from dataclasses import dataclass


@dataclass(frozen=True, slots=True)
class Needle:
    key: str
    cwd: str  # the project the session ran in
    prompt: str  # what the person typed
    reply: str  # Claude's final answer to it
    lexical: str
    paraphrase: str
    target: str = "reply"  # "reply" or "prompt": the message that holds the fact
    tool: tuple[str, str] | None = None  # a Bash command Claude ran before replying, its output

    @property
    def fact(self) -> str:
        return self.reply if self.target == "reply" else self.prompt


PAYMENTS = "/home/dev/work/payments-api"
DASHBOARD = "/home/dev/work/web-dashboard"
INFRA = "/home/dev/work/infra.k8s"
PIPELINE = "/Users/sam/code/ml-pipeline"
GATEWAY = "/home/dev/src/go-gateway"
BILLING = "/home/dev/work/billing-service"
REALTIME = "/home/dev/work/realtime-feed"
ACCOUNTS = "/home/dev/work/accounts"

NEEDLES: tuple[Needle, ...] = (
    Needle(
        "job-queue-deadlock",
        PIPELINE,
        "the worker pool hangs every few hours. all 8 workers stuck, 0% cpu, nothing in the "
        "logs. can you figure out what's going on? don't restart anything yet",
        "Found it: a lock-ordering deadlock in the job queue. `claim_next_job` takes the row "
        "lock on `jobs` first and then the tenant's advisory lock, while `requeue_stale` takes "
        "the advisory lock first and then locks the job rows. Two workers each end up holding "
        "one lock and waiting on the other forever. I changed `requeue_stale` to lock in the "
        "same order (job row, then tenant) and added `SKIP LOCKED` to the claim query so a "
        "worker never blocks on a row someone else already has.",
        "job queue deadlock advisory lock requeue_stale lock order",
        "why did the background task processors stall, each stuck on the other",
        tool=(
            'psql -c "SELECT pid, wait_event_type, left(query, 60) FROM pg_stat_activity '
            "WHERE wait_event_type = 'Lock'\"",
            "  pid  | wait_event_type |                             left\n"
            "-------+-----------------+---------------------------------------------------\n"
            " 48213 | Lock            | SELECT pg_advisory_xact_lock(hashtext($1))\n"
            " 48219 | Lock            | SELECT id FROM jobs WHERE status = 'queued' ORDER\n"
            "(2 rows)",
        ),
    ),
    Needle(
        "sessions-to-redis",
        PAYMENTS,
        "we keep hitting 'too many connections' on postgres at peak and half of the queries "
        "are the user_sessions table. what are our options?",
        "The `user_sessions` table is read on every request, about 40% of our Postgres queries "
        "at peak. I'd move session storage to Redis: we already run it for the rate limiter, "
        "sessions are short-lived key/value data with a TTL, and losing them on a Redis restart "
        "only logs people out. I switched `SESSION_BACKEND` to `redis`, set the TTL to 14 days "
        "to match the cookie max-age, and left the Postgres table read-only for a week so "
        "existing sessions still resolve.",
        "move session storage to Redis SESSION_BACKEND",
        "where did we decide to keep login state instead of the main db",
    ),
    Needle(
        "billing-timezone",
        BILLING,
        "customers in Sydney get their March invoice on the evening of Feb 28. support has 5 "
        "tickets about it. look at billing/cycle.py",
        "`next_invoice_date` converts the billing anchor to UTC before calling `.date()`, so "
        "midnight on 1 March in Sydney becomes 13:00 on 28 February UTC and the invoice is "
        "issued a day early. I changed it to work out the date in the customer's own timezone "
        "with `ZoneInfo(customer.tz)` and only convert to UTC for the scheduler timestamp. "
        "Added tests for Australia/Sydney and America/Los_Angeles around month ends.",
        "next_invoice_date timezone UTC invoice issued a day early",
        "people far east of Greenwich were charged prematurely",
    ),
    Needle(
        "websocket-leak",
        REALTIME,
        "memory of the realtime service grows ~200MB/hour until it gets OOMKilled. heap "
        "snapshot shows tons of Subscription objects",
        "The leak is in the websocket handler: `onConnection` registers a listener on the "
        "shared `priceFeed` EventEmitter for every socket, but the close handler never calls "
        "`priceFeed.off(...)`, so each disconnected socket's closure (and its send buffer) stays "
        "reachable. That's the Subscription objects piling up. I now remove the listener on "
        "`close` and on `error`, and added a test that opens and closes 1,000 sockets and "
        "asserts `priceFeed.listenerCount('tick')` is back to zero.",
        "websocket handler memory leak listener not removed on close",
        "why the live updates server kept eating RAM until the kernel killed it",
    ),
    Needle(
        "argon2",
        ACCOUNTS,
        "we need to pick a password hashing scheme for the new accounts service. bcrypt or "
        "argon2? we're on python",
        "I'd go with Argon2id via `argon2-cffi` rather than bcrypt. bcrypt silently truncates "
        "passwords at 72 bytes and is only CPU-hard; Argon2id is memory-hard, which makes GPU "
        "cracking far more expensive, and it's what OWASP recommends today. With "
        "`time_cost=3, memory_cost=65536, parallelism=4` a hash takes about 45 ms on our API "
        "pods. `PasswordHasher.check_needs_rehash` lets us raise the parameters later, "
        "upgrading each hash when that user next logs in.",
        "Argon2id instead of bcrypt password hashing",
        "which algorithm did we choose for storing credentials securely",
    ),
    Needle(
        "flaky-test-order",
        PAYMENTS,
        "test_export_csv passes alone but fails in the full run, only sometimes. we have "
        "pytest-randomly on",
        "It's test ordering, not timing: `test_settings_override` in tests/test_admin.py sets "
        "`settings.EXPORT_DELIMITER = ';'` directly on the module-level settings object and "
        "never restores it. When pytest-randomly runs it before `test_export_csv`, the export "
        "uses semicolons and the assertion on commas fails. I replaced the assignment with the "
        "`monkeypatch` fixture so it's undone after the test; the failing seed "
        "(`-p randomly --randomly-seed=1234`) passes now.",
        "test_export_csv fails depending on test order EXPORT_DELIMITER",
        "a check that broke only when some earlier case left a global tweak behind",
    ),
    Needle(
        "cors-credentials",
        DASHBOARD,
        "frontend on app.acme.io gets 'blocked by CORS policy' on every POST to the api since "
        "we turned on cookie auth. GETs are fine",
        "The API answers the preflight with `Access-Control-Allow-Origin: *` together with "
        "`Access-Control-Allow-Credentials: true`, and browsers reject that combination: the "
        "wildcard isn't allowed once cookies are sent. GETs work because they're simple "
        "requests with no preflight. I changed the CORS middleware to echo the request's Origin "
        "only if it's in `ALLOWED_ORIGINS` (app.acme.io and staging) and added `Vary: Origin` so "
        "the CDN doesn't serve one origin's answer to another.",
        "CORS Access-Control-Allow-Origin wildcard with credentials preflight",
        "why chrome refused the frontend's calls to our backend after we altered how users "
        "authenticate",
    ),
    Needle(
        "composite-index",
        PAYMENTS,
        "GET /orders?customer=...&status=open takes 4s for our biggest customers. can you "
        "check the query plan",
        "Postgres does a sequential scan over 9.4M rows because the only index is on "
        "`created_at`. I added a composite index `CREATE INDEX CONCURRENTLY "
        "orders_customer_status_idx ON orders (customer_id, status, created_at DESC)`: equality "
        "columns first, then the sort column, so `ORDER BY created_at DESC LIMIT 50` is served "
        "from the index as well. The same query now takes 3 ms.",
        "composite index orders customer_id status created_at",
        "how did we speed up the purchase history lookup for large clients",
        tool=(
            'psql -c "EXPLAIN ANALYZE SELECT * FROM orders WHERE customer_id = 8812 AND '
            "status = 'open' ORDER BY created_at DESC LIMIT 50\"",
            "Limit  (cost=482113.20..482113.32 rows=50 width=212)\n"
            "  ->  Sort  (actual time=3912.402..3912.411 rows=50 loops=1)\n"
            "        ->  Seq Scan on orders  (actual time=0.041..3911.551 rows=1180 loops=1)\n"
            "              Filter: ((customer_id = 8812) AND (status = 'open'::text))\n"
            "              Rows Removed by Filter: 9412877\n"
            "Execution Time: 3912.902 ms",
        ),
    ),
    Needle(
        "sliding-window-limiter",
        GATEWAY,
        "the partner API says we promised 100 req/min but their logs show bursts of 200 within "
        "a couple of seconds from our gateway. how?",
        "The bursts happen at window boundaries: with a fixed 60-second window a client can "
        "send 100 requests at 12:00:59 and another 100 at 12:01:00. I switched the limiter to a "
        "sliding window log in Redis (one sorted set per API key, `ZREMRANGEBYSCORE` to drop "
        "entries older than 60 s, then `ZCARD`), so the limit holds over any 60-second span.",
        "rate limiter fixed window sliding window ZREMRANGEBYSCORE",
        "callers squeezed twice their quota through at the turn of each minute",
    ),
    Needle(
        "alpine-musl",
        PIPELINE,
        "docker build for the pipeline image takes 25 minutes now, mostly stuck in pip install",
        "The base image is Alpine, which uses musl, so there are no manylinux wheels for numpy, "
        "pandas and scipy and pip compiles them from source. Switching to `python:3.11-slim` "
        "(Debian, glibc) lets pip use the prebuilt wheels: the build is down to 90 seconds, and "
        "the image is 40 MB smaller because gcc and the build headers are gone.",
        "Alpine musl no manylinux wheels python:3.11-slim",
        "why making the container took ages and which distro we moved to",
    ),
    Needle(
        "kafka-rebalance",
        PIPELINE,
        "we see duplicate enrichment rows, always in batches of ~500, and always when the geo "
        "api is having a bad day",
        "The consumer gets kicked out of the group because processing a batch of 500 records "
        "takes longer than `max.poll.interval.ms` (5 minutes) when the geo API is slow. Kafka "
        "then rebalances and another consumer re-processes the same batch, hence the "
        "duplicates. I lowered `max.poll.records` to 50 and made the handler idempotent on "
        "`event_id`.",
        "Kafka rebalance max.poll.interval.ms max.poll.records",
        "why did the stream reader hand the same work to a different instance when lookups "
        "were sluggish",
    ),
    Needle(
        "presigned-content-type",
        DASHBOARD,
        "avatar upload fails with 403 SignatureDoesNotMatch but only for some images??",
        "It fails for PNGs: the presigned URL is generated with `ContentType='image/jpeg'` "
        "baked into the signed params, but the browser sends `Content-Type: image/png` for a "
        "PNG. S3 includes the content type in the signature, so any mismatch breaks it. "
        "`create_upload_url` now takes the file's actual MIME type from the client.",
        "presigned URL SignatureDoesNotMatch ContentType",
        "why some profile pictures got rejected by object storage",
    ),
    Needle(
        "idle-in-transaction",
        BILLING,
        "QueuePool limit of size 20 overflow 10 reached, connection timed out — happens every "
        "month end. help",
        "The pool runs dry because `generate_statement` opens a transaction and then calls the "
        "PDF renderer over HTTP while still holding the connection; `pg_stat_activity` shows 20 "
        "connections `idle in transaction` for up to 40 seconds each. I moved the HTTP call "
        "outside the `with session.begin()` block and set "
        "`idle_in_transaction_session_timeout = 60s` as a safety net.",
        "connection pool idle in transaction pg_stat_activity",
        "what was hogging the database handles during the month-end paperwork batch",
    ),
    Needle(
        "time-after-leak",
        GATEWAY,
        "gateway RSS climbs steadily under constant traffic, pprof heap attached. goroutine "
        "count is flat so it's not a goroutine leak",
        "The growth is all in `time.NewTimer` allocations from `proxyLoop`: it calls "
        "`time.After(30 * time.Second)` inside the `select` on every iteration, and each of "
        "those timers stays allocated until it fires 30 seconds later. At 20k iterations per "
        "second that's 600k live timers. I create one `time.Timer` outside the loop and "
        "`Reset` it each time round.",
        "time.After inside select loop timers proxyLoop",
        "why memory in the go proxy crept upward under steady load",
    ),
    Needle(
        "hydration-date",
        DASHBOARD,
        'console spam: \'Text content did not match. Server: "3/4/2026, 10:00:00 AM" Client: '
        '"04/03/2026, 11:00:00"\' on the activity page',
        "That's a hydration mismatch: `<LastSeen>` renders `new Date(ts).toLocaleString()` "
        "during SSR, where the server formats in UTC with en-US, and the browser formats in the "
        "user's locale and zone. I render the raw ISO string on the server and format it in a "
        "`useEffect` after mount, so both passes produce the same HTML first.",
        "hydration mismatch toLocaleString SSR LastSeen",
        "the page's initial paint disagreed with what the client showed after taking over",
    ),
    Needle(
        "terraform-lock",
        INFRA,
        "every terraform plan in CI fails with 'Error acquiring the state lock' since this morning",
        "A `terraform apply` job was cancelled mid-run yesterday and left its lock item in the "
        "DynamoDB table. I checked that no apply is running, then released it with "
        "`terraform force-unlock 6f1c2a9e`. I also added `-lock-timeout=5m` to the workflow and "
        "a `concurrency` group so two applies can't overlap.",
        "terraform state lock force-unlock DynamoDB",
        "infra changes were blocked because an aborted CI pipeline kept holding a claim",
    ),
    Needle(
        "sqlite-wal",
        "/home/dev/projects/memtui",
        "let's turn on WAL mode for the sqlite db: readers keep getting 'database is locked' "
        "while the sync job writes. also set busy_timeout to 5000 so the occasional writer "
        "collision waits instead of failing",
        "Done: `PRAGMA journal_mode=WAL` and `PRAGMA busy_timeout=5000` are set when the "
        "connection opens in `db.connect`. Tests pass.",
        "WAL mode sqlite database is locked busy_timeout",
        "how we stopped the local store from refusing reads during background saves",
        target="prompt",
    ),
    Needle(
        "postgres-not-mongo",
        "/home/dev/work/reports-service",
        "decision for the reports service: we stay on Postgres, not MongoDB. the data is "
        "relational (accounts, invoices, line items), we need joins and transactions for the "
        "month-end close, and jsonb covers the few free-form fields. please write that up as an "
        "ADR in docs/adr/0007-datastore.md",
        "I've written `docs/adr/0007-datastore.md` with the context, the options considered, "
        "the decision and its consequences.",
        "reports service Postgres not MongoDB jsonb ADR",
        "why didn't we go with a document database for the finance summaries app",
        target="prompt",
    ),
    Needle(
        "nginx-body-size",
        INFRA,
        "uploading the 30MB csv through the admin gives '413 Request Entity Too Large'. the app "
        "allows 100MB",
        "The 413 comes from the ingress, not the app: nginx defaults `client_max_body_size` to "
        "1m. I added the annotation `nginx.ingress.kubernetes.io/proxy-body-size: 100m` to the "
        "admin ingress only, so the other services keep the small limit.",
        "413 Request Entity Too Large client_max_body_size proxy-body-size",
        "big spreadsheet imports got bounced before reaching our code",
    ),
    Needle(
        "celery-visibility-timeout",
        PIPELINE,
        "some transcodes run twice, at the same time, on different workers. only the long videos",
        "With the Redis broker, a task that hasn't been acknowledged within "
        "`visibility_timeout` (1 hour by default) is redelivered to another worker. Our "
        "transcode tasks run up to 3 hours and we use `acks_late=True`, so they get picked up a "
        "second time. I set `broker_transport_options = {'visibility_timeout': 14400}` and added "
        "a per-video lock so a duplicate delivery exits early.",
        "celery visibility_timeout acks_late redelivered",
        "why lengthy media conversions executed in parallel twice",
    ),
    Needle(
        "lru-cache-method",
        BILLING,
        "memory of the pricing worker grows with every request and never comes down. "
        "tracemalloc top 10 below",
        "`@lru_cache(maxsize=None)` on the method `PriceCalculator.quote` keeps `self` in the "
        "cache key, so every `PriceCalculator` ever created (one per request) stays alive, with "
        "its loaded tariff tables. I moved the cached part into a module-level function keyed "
        "on `(tariff_id, currency)` and left the method uncached.",
        "lru_cache on method keeps self alive PriceCalculator",
        "why objects from earlier calls were never freed in the price estimation code",
    ),
    Needle(
        "filter-repo",
        DASHBOARD,
        "the repo is 2.3GB because someone committed the storybook-static build folder for "
        "months. rewrite history with git filter-repo to drop storybook-static/ and *.mp4, "
        "then I'll force-push and tell everyone to re-clone",
        "Ran `git filter-repo --path storybook-static/ --path-glob '*.mp4' --invert-paths`; "
        "the pack is now 84 MB. Added both to .gitignore. I haven't pushed anything.",
        "git filter-repo storybook-static rewrite history",
        "how did we shrink the repository after compiled output had been checked in",
        target="prompt",
    ),
    Needle(
        "dst-cron",
        INFRA,
        "the nightly backup ran twice on sunday night. is the scheduler broken?",
        "Not broken, it's daylight saving: the schedule is stored as wall-clock time in "
        "Europe/Berlin, and on 26 October the hour from 02:00 to 03:00 happened twice when the "
        "clocks went back, so the 02:30 job fired twice. I moved the cron to 01:15 UTC, which "
        "never repeats or disappears.",
        "daylight saving cron ran twice Europe/Berlin 02:30",
        "backup executed double on the autumn DST switch",
    ),
    Needle(
        "cents-not-floats",
        BILLING,
        "from now on all money amounts are stored and computed as integer cents (bigint), never "
        "float. the 0.01 discrepancies on invoice totals come from summing floats. convert "
        "line_items.amount and update the serializers",
        "Migration `0042_amount_cents` converts `line_items.amount` to `amount_cents BIGINT` "
        "(multiplying by 100 and rounding) and the serializers format cents as decimals at the "
        "edge only.",
        "money integer cents bigint not float invoice totals",
        "what representation did we settle on for currency values, and why",
        target="prompt",
    ),
    Needle(
        "httponly-cookie",
        DASHBOARD,
        "security review says no tokens in localStorage. let's keep the access token in memory "
        "only and put the refresh token in an httpOnly, Secure, SameSite=Strict cookie scoped "
        "to /auth/refresh",
        "Updated `useAuth` to hold the access token in memory and call `/auth/refresh` on "
        "page load; the server now sets the refresh cookie with those flags.",
        "refresh token httpOnly cookie not localStorage",
        "where the browser app stores its login secrets after the audit",
        target="prompt",
    ),
    Needle(
        "unicode-nfc",
        ACCOUNTS,
        "there are two accounts for josé@... in prod. the unique constraint should have "
        "prevented that",
        "The two emails differ in Unicode normalisation: one has é as a single code point "
        "(NFC), the other as e plus a combining accent (NFD, what macOS keyboards sometimes "
        "send). The unique index compares bytes, so both got in. Emails and usernames are now "
        "passed through `unicodedata.normalize('NFC', ...).casefold()` before saving and "
        "lookup, and a migration merges the existing duplicates.",
        "unicode normalization NFC NFD duplicate accounts",
        "same person signed up twice because of diacritics",
    ),
    Needle(
        "webhook-raw-body",
        PAYMENTS,
        "stripe webhooks all fail signature verification since the express upgrade",
        "The HMAC has to be computed over the exact raw bytes Stripe sent, but `express.json()` "
        "now runs globally before our webhook route, so we were verifying a re-serialised "
        "object. I mounted `express.raw({type: 'application/json'})` on `/webhooks/stripe` "
        "before the JSON parser; `constructEvent` verifies again.",
        "stripe webhook signature raw body express.json",
        "why the payment provider's callbacks failed authenticity checks",
    ),
    Needle(
        "cpu-throttling",
        INFRA,
        "p99 on the checkout service jumps to 900ms every few minutes but CPU usage on the "
        "nodes is like 30%",
        "It's CFS throttling: the pods have `limits.cpu: 500m`, so within each 100 ms period "
        "they get 50 ms of CPU, and a burst of GC plus JSON encoding exhausts it and the "
        "process waits for the next period. `container_cpu_cfs_throttled_periods_total` is "
        "climbing in step with the latency spikes. I removed the CPU limit and kept the "
        "request at 500m.",
        "CFS throttling cpu limit container_cpu_cfs_throttled_periods_total",
        "checkout got slow now and then while machines sat mostly idle",
    ),
    Needle(
        "mutable-default",
        "/home/dev/work/cms",
        "tags from one article show up on other articles after saving, randomly??",
        "`add_tags(article, tags=[])` uses a mutable default argument: the same list object is "
        "shared by every call that doesn't pass `tags`, so tags appended for one article stay "
        "in it for the next. Changed the default to `None` and create a new list inside.",
        "mutable default argument tags=[] shared list",
        "labels from one post appeared on unrelated posts",
    ),
    Needle(
        "pnpm-monorepo",
        DASHBOARD,
        "decision: web, admin and the shared ui kit go into one repo with pnpm workspaces and "
        "turborepo for the task graph. no more publishing @acme/ui to npm just to use it in the "
        "two apps. set up the workspace and move admin in",
        "Created `pnpm-workspace.yaml` with `apps/*` and `packages/*`, moved admin to "
        "`apps/admin` and the UI kit to `packages/ui`, and added `turbo.json` with build, lint "
        "and test pipelines.",
        "pnpm workspaces turborepo monorepo @acme/ui",
        "how did we organise the frontend codebases together",
        target="prompt",
    ),
    Needle(
        "int-overflow",
        PAYMENTS,
        "inserts into payments started failing an hour ago: 'integer out of range'",
        "`payments.id` is a 32-bit `integer` serial and the sequence just passed 2,147,483,647. "
        "I changed the column and its sequence to `bigint`; on this table that needs a rewrite, "
        "so I did it with a new column, a batched backfill and a swap. Other tables with serial "
        "ids are at under 10% of the range.",
        "integer out of range payments id bigint sequence",
        "writes began failing once the counter went past two billion",
    ),
    Needle(
        "log-costs",
        INFRA,
        "why did the datadog bill triple in march?",
        "Log ingestion went from 40 GB to 130 GB a day on 3 March, when the api deploy shipped "
        "without `LOG_LEVEL` set, so it defaulted to DEBUG and logs every SQL statement. I set "
        "`LOG_LEVEL=INFO` in the Helm values, made INFO the code default, and added an "
        "exclusion filter that drops health-check access logs.",
        "datadog log ingestion LOG_LEVEL DEBUG",
        "why our observability invoice shot up",
    ),
    Needle(
        "retry-storm",
        GATEWAY,
        "when inventory had its 5 minute blip yesterday, it got 30x normal traffic and took "
        "ages to recover. where did all the requests come from?",
        "A retry storm: the gateway, the order service and the inventory client each retry 3 "
        "times, so one failing call becomes 3 x 3 x 3 = 27 requests to inventory. I removed the "
        "retries in the order service and the client, kept them only at the gateway with a "
        "retry budget (at most 10% extra requests), and added jittered backoff.",
        "retry storm retry budget 27 requests inventory",
        "a single failure multiplied into dozens of hits downstream",
    ),
    Needle(
        "excel-bom",
        BILLING,
        "finance says the exported CSV shows garbage instead of ä ö ü when they open it",
        "Excel assumes the local ANSI code page for a CSV without a byte order mark, so the "
        "UTF-8 umlauts come out as mojibake. Writing the file with `encoding='utf-8-sig'` adds "
        "the BOM and Excel detects UTF-8.",
        "Excel CSV utf-8-sig BOM umlauts mojibake",
        "spreadsheet software garbled accented characters in downloaded reports",
    ),
    Needle(
        "uv",
        PIPELINE,
        "switch the project from poetry to uv. lockfile resolution takes 4 minutes with poetry "
        "and CI installs are slow; uv does both in seconds. keep the dependency groups",
        "Converted `pyproject.toml` to PEP 621 metadata with `[dependency-groups]`, generated "
        "`uv.lock`, and CI now runs `uv sync --frozen`. Install time in CI went from 3m10s to "
        "14s.",
        "switch from poetry to uv lockfile",
        "which python packaging tool did we standardise on and why",
        target="prompt",
    ),
    Needle(
        "autovacuum",
        PAYMENTS,
        "the audit_events table is 180GB but we delete everything older than 90 days every "
        "night. what's going on?",
        "Autovacuum can't keep up: with the default `autovacuum_vacuum_scale_factor` of 0.2 it "
        "only starts after 20% of 600M rows are dead, and the nightly DELETE keeps creating "
        "them. `n_dead_tup` is at 410M. I set the scale factor to 0.01 on that table, and "
        "suggested range partitioning by month so old data is dropped with `DETACH PARTITION` "
        "instead of deleted.",
        "autovacuum_vacuum_scale_factor dead tuples audit_events",
        "storage for the audit log ballooned although we purge expired entries",
    ),
    Needle(
        "double-withdrawal",
        PAYMENTS,
        "a user managed to withdraw 200 from a wallet with 100 in it. two requests 40ms apart",
        "A race in `withdraw`: both requests read the balance (100), both pass the check and "
        "both write. I replaced the read-check-write with one atomic statement, "
        "`UPDATE wallets SET balance = balance - %s WHERE id = %s AND balance >= %s`, and treat "
        "zero updated rows as insufficient funds.",
        "withdraw race condition balance atomic UPDATE",
        "someone took out more money than they had by clicking twice fast",
    ),
    Needle(
        "cert-manager",
        INFRA,
        "grafana.internal shows 'your connection is not private' since this morning",
        "The certificate expired last night: cert-manager failed to renew it because the "
        "ClusterIssuer still uses the HTTP-01 solver, and the internal ingress isn't reachable "
        "from Let's Encrypt. I switched the issuer to DNS-01 with the Route53 solver; the "
        "certificate renewed within a minute, and I added an alert on "
        "`certmanager_certificate_expiration_timestamp_seconds`.",
        "cert-manager certificate expired HTTP-01 DNS-01 ClusterIssuer",
        "the monitoring dashboard suddenly looked untrusted in browsers overnight",
    ),
    Needle(
        "search-debounce",
        DASHBOARD,
        "search results flicker and sometimes show results for what I typed earlier, not the "
        "final text",
        "Each keystroke fires a request and responses can arrive out of order, so the response "
        "for 'rea' lands after the one for 'react' and overwrites it. I added a 250 ms debounce "
        "and an `AbortController` that cancels the previous fetch when a new one starts.",
        "debounce AbortController out of order responses",
        "fast typing showed hits for an older partial term",
    ),
    Needle(
        "sigterm-pid1",
        INFRA,
        "rolling deploys of the api take forever, each pod sits in Terminating for 30s",
        "The container's PID 1 is `sh -c 'node server.js'`, and the shell doesn't forward "
        "SIGTERM, so Node never hears it and Kubernetes kills it after the 30 s grace period. "
        "I changed the entrypoint to `exec node server.js` and added a SIGTERM handler that "
        "stops accepting connections and drains.",
        "SIGTERM PID 1 exec entrypoint Terminating",
        "rollouts were slow because the app ignored the shutdown signal",
    ),
    Needle(
        "uuid-v7",
        PAYMENTS,
        "for the new ledger tables let's use UUIDv7 primary keys instead of v4. the random v4 "
        "keys fragment the btree and insert throughput on events dropped by half as the table "
        "grew; v7 is time-ordered so inserts go to the right edge of the index",
        "Added `uuid7()` in `ledger/ids.py` (using the `uuid6` package until Python ships it) "
        "and made it the default for the new tables.",
        "UUIDv7 primary keys instead of v4 btree",
        "which id scheme did we pick so rows sort chronologically",
        target="prompt",
    ),
    Needle(
        "gil-thumbnails",
        "/home/dev/work/cms",
        "thumbnail generation doesn't get faster with more threads, 8 threads = same as 1",
        "Resizing in Pillow is CPU-bound Python work that holds the GIL for most of the call, "
        "so the `ThreadPoolExecutor` runs one resize at a time. I switched to "
        "`ProcessPoolExecutor(max_workers=os.cpu_count())`; 400 thumbnails now take 11 s "
        "instead of 58 s.",
        "GIL ThreadPoolExecutor ProcessPoolExecutor thumbnails",
        "image shrinking didn't speed up when we added more parallelism",
    ),
    Needle(
        "leaked-key",
        PAYMENTS,
        "i think i committed .env.production with the live stripe key in it, pushed to github "
        "10 min ago",
        "I rolled the key in the Stripe dashboard, so the committed one no longer works, and "
        "updated the secret in Vault. Then I removed `.env.production` from the repo, added "
        "`.env*` to .gitignore, and added `gitleaks` as a pre-commit hook so this gets caught "
        "before a commit next time.",
        "rolled stripe key gitleaks pre-commit .env.production",
        "what we did after a credential got pushed to the public remote",
    ),
    Needle(
        "playwright",
        DASHBOARD,
        "we're moving e2e tests from cypress to playwright: we need webkit for the safari bug "
        "reports and cypress can't do multiple tabs for the oauth flow. start with the login "
        "and checkout specs",
        "Ported `login.cy.ts` and `checkout.cy.ts` to `e2e/login.spec.ts` and "
        "`e2e/checkout.spec.ts`, with chromium, firefox and webkit projects in "
        "`playwright.config.ts`.",
        "cypress to playwright webkit e2e",
        "which browser automation framework replaced the old one and why",
        target="prompt",
    ),
    Needle(
        "n-plus-one-graphql",
        DASHBOARD,
        "the team page graphql query does 300+ SQL queries, the trace looks like a comb",
        "Each `Member.avatar` resolver loads its own user row, one query per member. I added a "
        "DataLoader that batches the ids from one tick into a single `WHERE id = ANY($1)` "
        "query and caches per request; the team page now makes 4 queries.",
        "DataLoader resolver batches queries Member.avatar",
        "the people screen hit the database hundreds of times for one view",
    ),
    Needle(
        "jwt-clock-skew-mobile",
        ACCOUNTS,
        "android users on some cheap phones get logged out right after logging in",
        "Those phones' clocks are minutes behind, and the app checks the token's `exp` against "
        'the device clock before each request: a token issued "in the future" by the '
        "device's standards gets rejected locally and the app signs the user out. The app "
        "now trusts the server: it reads the `Date` header at login and stores the offset.",
        "android token exp device clock behind signs out",
        "some handsets kicked people out immediately because their time was wrong",
    ),
    Needle(
        "grpc-keepalive",
        GATEWAY,
        "after about 10 min of no traffic, the first grpc call to pricing always fails with "
        "UNAVAILABLE",
        "The AWS NLB drops idle TCP connections after 350 seconds without telling either side, "
        "so the first call on the dead connection fails. I enabled client keepalive pings "
        "every 60 s (`keepalive.ClientParameters{Time: 60 * time.Second}`) and allowed them on "
        "the server with a matching `EnforcementPolicy`.",
        "grpc keepalive NLB idle connection UNAVAILABLE",
        "the opening request after a quiet spell always errored",
    ),
    Needle(
        "pagination-offset",
        "/home/dev/work/reports-service",
        "the export of all transactions skips some rows and repeats others when it runs during "
        "business hours. at night it's fine",
        "The export pages with `LIMIT 500 OFFSET n` ordered by `created_at`, and rows inserted "
        "while it runs shift every later page: one row moves into a page already read "
        "(skipped) or back into the next one (repeated). I switched to keyset pagination, "
        "`WHERE (created_at, id) > (%s, %s) ORDER BY created_at, id LIMIT 500`, which "
        "continues from the last row seen, so concurrent inserts can no longer move pages.",
        "keyset pagination instead of OFFSET export skips rows",
        "why the daytime dump lost some entries and doubled others",
    ),
    Needle(
        "feature-flag-cache",
        DASHBOARD,
        "we turned off the new_checkout flag an hour ago and half the users still get the new "
        "checkout",
        "Each web pod keeps the flag set in an in-process cache for 60 minutes, and a pod only "
        "refetches when its entry expires, so pods flip at different times within the hour. "
        "I cut the TTL to 30 seconds and subscribed the pods to the LaunchDarkly streaming "
        "updates, so a toggle reaches every pod within a second.",
        "feature flag TTL in-process cache LaunchDarkly streaming",
        "switching something off took ages to apply for everyone",
    ),
    Needle(
        "disk-full-journald",
        INFRA,
        "build agent 3 keeps failing with 'No space left on device' even after we cleaned docker",
        "The root volume is full of systemd journal files: `journalctl --disk-usage` reports "
        "38 GB because `SystemMaxUse` was never set and a crash-looping service logged 2,000 "
        "lines a second. I vacuumed to 1 GB with `journalctl --vacuum-size=1G`, set "
        "`SystemMaxUse=1G` in journald.conf on all agents, and fixed the service's restart loop.",
        "journald SystemMaxUse No space left on device",
        "the CI box ran out of room even after we pruned images",
    ),
)


@dataclass(frozen=True, slots=True)
class More:
    """A needle's further queries: asked as questions, months later."""

    lexical: tuple[str, str]  # remembering some of the words the target used
    paraphrase: tuple[str, str]  # in other words (no rare word shared with the target)
    concepts: tuple[str, ...]  # 2-3 concepts that must all match (an AND query)
    alternatives: tuple[str, ...]  # the paraphrase rewritten as Claude would: the answer's words


MORE: dict[str, More] = {
    "job-queue-deadlock": More(
        ("what was the deadlock in the job queue about?", "which lock order did requeue_stale use"),
        (
            "the time our background processors froze, each held up by another",
            "why did everything hang with idle processors",
        ),
        ("deadlock", "advisory lock"),
        ("worker pool deadlock lock ordering", "jobs stuck waiting on a lock"),
    ),
    "sessions-to-redis": More(
        ("did we move sessions to redis?", "when did we change SESSION_BACKEND"),
        (
            "where is sign-in state kept now",
            "how we took pressure off the main database from sign-in lookups",
        ),
        ("sessions", "redis"),
        ("session storage redis instead of postgres", "user sessions table moved"),
    ),
    "billing-timezone": More(
        ("why was the invoice issued a day early in Sydney?", "next_invoice_date timezone bug"),
        (
            "Australians got charged too soon",
            "charges landing prematurely for clients overseas",
        ),
        ("invoice", "timezone", "Sydney"),
        ("invoice date timezone UTC bug", "billing date wrong for Australia customers"),
    ),
    "websocket-leak": More(
        ("what was the websocket memory leak?", "listener never removed on socket close"),
        (
            "the streaming service got OOM killed regularly",
            "why did the push server's RAM keep growing",
        ),
        ("websocket", "leak"),
        ("websocket memory leak event listener", "realtime service out of memory"),
    ),
    "argon2": More(
        ("did we pick argon2 or bcrypt?", "argon2id parameters for password hashes"),
        (
            "how are account passphrases protected at rest",
            "what do we run logins through before saving them",
        ),
        ("password", "argon2id"),
        ("password hashing bcrypt argon2", "hash passwords algorithm"),
    ),
    "flaky-test-order": More(
        (
            "why did test_export_csv fail only in the full run?",
            "EXPORT_DELIMITER leaked between tests",
        ),
        (
            "that intermittent CI failure caused by leftover state from another suite",
            "a check that broke depending on what ran earlier",
        ),
        ("flaky test", "monkeypatch"),
        ("flaky test ordering global settings", "pytest randomly order dependent failure"),
    ),
    "cors-credentials": More(
        (
            "why were POSTs blocked by CORS after cookie auth?",
            "Access-Control-Allow-Credentials with wildcard origin",
        ),
        (
            "chrome refused cross-site calls after the login rework",
            "the web client could read but not submit after the sign-in rework",
        ),
        ("CORS", "credentials"),
        ("CORS error credentials cookies preflight", "blocked by CORS policy POST"),
    ),
    "composite-index": More(
        (
            "which composite index did we add on orders?",
            "why was the orders query doing a sequential scan",
        ),
        ("making the big clients' purchase list fast", "that 4 second endpoint for big accounts"),
        ("composite index", "orders"),
        ("slow orders query index postgres", "sequential scan orders customer"),
    ),
    "sliding-window-limiter": More(
        (
            "when did we move to a sliding window rate limiter?",
            "fixed window burst at the boundary",
        ),
        (
            "the partner saw double the allowed traffic in a flash",
            "how we stopped callers firing off twice their quota around the minute mark",
        ),
        ("rate limiter", "sliding window"),
        ("rate limit burst fixed window", "rate limiter redis window"),
    ),
    "alpine-musl": More(
        ("why was pip slow on the alpine image?", "no manylinux wheels on musl"),
        (
            "the container that took ages to make",
            "which distro did we move to so numeric libraries came ready-made",
        ),
        ("alpine", "wheels"),
        ("docker build slow pip install alpine", "base image python slim"),
    ),
    "kafka-rebalance": More(
        ("why did kafka rebalance and reprocess a batch?", "what did we set max.poll.records to"),
        (
            "rows stored twice whenever a lookup service had a rough spell",
            "repeated work whenever something downstream dragged",
        ),
        ("kafka", "rebalance"),
        ("kafka consumer duplicates rebalance", "consumer group timeout slow processing"),
    ),
    "presigned-content-type": More(
        (
            "why did the presigned upload fail with SignatureDoesNotMatch?",
            "ContentType in the presigned URL",
        ),
        (
            "certain profile pictures refused by the storage bucket",
            "the 403 on some user photo saves",
        ),
        ("presigned", "content type"),
        ("S3 upload 403 signature", "presigned URL content type mismatch"),
    ),
    "idle-in-transaction": More(
        (
            "what was idle in transaction at month end?",
            "QueuePool limit reached generate_statement",
        ),
        (
            "we ran out of database handles every end of month",
            "why producing monthly paperwork exhausted our database handles",
        ),
        ("connection pool", "transaction"),
        (
            "connection pool exhausted idle in transaction",
            "database connections held during http call",
        ),
    ),
    "time-after-leak": More(
        ("was it time.After in the select loop?", "proxyLoop timers allocation"),
        (
            "the gateway's resident size climbing while goroutine count was flat",
            "what kept the go service growing at constant traffic",
        ),
        ("timer", "select"),
        ("go memory leak timers", "gateway memory growth pprof"),
    ),
    "hydration-date": More(
        ("what caused the hydration mismatch on the activity page?", "toLocaleString during SSR"),
        (
            "initial paint and the client disagreed about the clock time shown",
            "console warning about content differing between backend output and the client",
        ),
        ("hydration", "date"),
        ("react hydration mismatch date format", "SSR locale timezone"),
    ),
    "terraform-lock": More(
        ("how did we fix the terraform state lock?", "did we run force-unlock on DynamoDB"),
        (
            "plans in CI all erroring after an aborted pipeline",
            "a stuck hold from a killed deployment blocked everything",
        ),
        ("terraform", "lock"),
        ("terraform state lock error", "force unlock cancelled apply"),
    ),
    "sqlite-wal": More(
        ("when did we enable WAL mode?", "busy_timeout 5000 sqlite"),
        (
            "reads refused during background saves",
            "the journaling switch for our embedded store",
        ),
        ("sqlite", "WAL"),
        ("sqlite database is locked WAL", "journal mode busy timeout"),
    ),
    "postgres-not-mongo": More(
        ("did we choose postgres or mongodb for reports?", "the ADR about MongoDB"),
        (
            "why we kept a tabular store for finance summaries",
            "our call against a schemaless store",
        ),
        ("postgres", "mongodb"),
        ("datastore decision postgres mongodb ADR", "relational vs document database reports"),
    ),
    "nginx-body-size": More(
        ("where did the 413 come from?", "client_max_body_size on the ingress"),
        ("the 30 MB spreadsheet import was refused", "large files refused by the cluster edge"),
        ("413", "ingress"),
        ("413 request entity too large nginx", "upload size limit ingress"),
    ),
    "celery-visibility-timeout": More(
        ("why did celery redeliver long tasks?", "visibility_timeout and acks_late"),
        (
            "media conversions executing on two machines simultaneously",
            "double execution of very lengthy background work",
        ),
        ("visibility timeout", "redelivered"),
        ("celery task runs twice redis broker", "long tasks redelivered"),
    ),
    "lru-cache-method": More(
        ("was it lru_cache on a method?", "PriceCalculator kept alive"),
        (
            "the estimates service's heap growing with each call",
            "a memoisation decorator that pinned instances",
        ),
        ("lru_cache", "PriceCalculator"),
        ("lru_cache method memory leak self", "python cache decorator leak"),
    ),
    "filter-repo": More(
        ("did we run git filter-repo?", "dropping storybook-static from history"),
        ("the 2.3 GB checkout we trimmed", "removing compiled output from old revisions"),
        ("filter-repo", "history"),
        ("rewrite git history remove large files", "repo size build folder committed"),
    ),
    "dst-cron": More(
        ("why did the cron run twice on daylight saving?", "Europe/Berlin schedule 02:30"),
        (
            "the overnight task that executed double one autumn weekend",
            "the autumn DST shift made a planned task execute double",
        ),
        ("cron", "daylight saving"),
        ("cron job ran twice daylight saving time", "backup schedule timezone UTC"),
    ),
    "cents-not-floats": More(
        ("did we store money as integer cents?", "the bigint cents migration for amounts"),
        (
            "the rule about one-penny rounding differences",
            "how currency values are held to avoid rounding drift",
        ),
        ("cents", "float"),
        ("money amounts integer cents not floats", "currency rounding decimal storage"),
    ),
    "httponly-cookie": More(
        ("where is the refresh token kept?", "httpOnly cookie SameSite Strict"),
        (
            "after the audit, where do login secrets live in the web client",
            "nothing sensitive in the browser's persistent key store",
        ),
        ("refresh token", "cookie"),
        ("access token refresh token storage httpOnly cookie", "tokens localStorage security"),
    ),
    "unicode-nfc": More(
        ("why did the unique index let duplicate emails in?", "NFC normalisation of emails"),
        (
            "the same address registered twice with a diacritic",
            "identical-looking addresses the database accepted twice",
        ),
        ("unicode", "normalization"),
        ("duplicate accounts unicode email normalization", "unique constraint accented characters"),
    ),
    "webhook-raw-body": More(
        ("why did stripe webhook signatures fail?", "express.raw for the webhook route"),
        (
            "callbacks from our card processor rejected after a library upgrade",
            "checking payment events broke once body parsing ran everywhere",
        ),
        ("stripe", "raw bytes"),
        ("stripe webhook signature verification raw body", "webhook HMAC express parser"),
    ),
    "cpu-throttling": More(
        ("was the checkout latency CFS throttling?", "did we remove the cpu limit"),
        (
            "tail response-time jumps at 30% host usage",
            "the service stalled now and then though cores were free",
        ),
        ("cpu limit", "throttling"),
        ("kubernetes cpu throttling latency spikes", "cpu limits pods slow"),
    ),
    "mutable-default": More(
        ("was it a mutable default argument?", "add_tags tags=[] bug"),
        ("labels leaking across posts", "why saved posts picked up each other's labels"),
        ("default argument", "tags"),
        ("python mutable default list bug", "tags shared between articles"),
    ),
    "pnpm-monorepo": More(
        ("when did we set up pnpm workspaces?", "turborepo and the @acme/ui package"),
        (
            "putting all frontend projects and the component library in a single repository",
            "we stopped releasing the design system as a package",
        ),
        ("pnpm", "turborepo"),
        ("monorepo workspaces frontend apps shared package", "one repo for web and admin"),
    ),
    "int-overflow": More(
        (
            "why did payments inserts fail with integer out of range?",
            "changing payments id to bigint",
        ),
        ("the primary key that hit its ceiling", "a primary-key counter that exceeded the maximum"),
        ("integer", "bigint"),
        ("integer overflow primary key sequence", "id column out of range"),
    ),
    "log-costs": More(
        ("why did log ingestion jump to 130 GB a day?", "LOG_LEVEL defaulted to DEBUG"),
        ("monitoring costs jumped in spring", "the vendor charge that tripled after a release"),
        ("log ingestion", "DEBUG"),
        ("datadog bill log volume debug level", "logging costs increase"),
    ),
    "retry-storm": More(
        ("what caused the retry storm on inventory?", "retry budget at the gateway"),
        (
            "the stock system got 30x its usual traffic during a short outage",
            "layers each re-sending made the outage worse",
        ),
        ("retry", "inventory"),
        ("retry storm cascading retries", "retries multiplied requests outage"),
    ),
    "excel-bom": More(
        ("why did Excel show mojibake in the CSV?", "utf-8-sig BOM for exports"),
        ("finance saw garbage instead of ä ö ü", "German letters broken when opening our export"),
        ("CSV", "BOM"),
        ("CSV encoding Excel umlauts UTF-8", "export special characters garbled"),
    ),
    "uv": More(
        ("when did we switch from poetry to uv?", "uv sync --frozen in CI"),
        (
            "which tool replaced the sluggish one for python libraries",
            "packaging tool migration for the pipeline",
        ),
        ("poetry", "uv"),
        ("python package manager poetry uv lockfile", "dependency resolution slow CI install"),
    ),
    "autovacuum": More(
        (
            "why couldn't autovacuum keep up with the nightly DELETE?",
            "autovacuum scale factor dead tuples",
        ),
        (
            "the log of events that kept ballooning though we purge expired entries",
            "bloat after the 90-day purge",
        ),
        ("autovacuum", "dead rows"),
        ("postgres table bloat autovacuum", "deleted rows disk space vacuum"),
    ),
    "double-withdrawal": More(
        ("was the double withdrawal a race condition?", "atomic UPDATE on wallet balance"),
        (
            "an account paid out double what it held",
            "two simultaneous clicks got the money out twice",
        ),
        ("withdraw", "race"),
        ("race condition balance check concurrent requests", "double spend wallet"),
    ),
    "cert-manager": More(
        ("why did the grafana certificate expire?", "cert-manager DNS-01 solver"),
        (
            "the privacy warning on a company dashboard",
            "TLS refresh broke since the host was private",
        ),
        ("certificate", "cert-manager"),
        ("certificate expired renewal lets encrypt", "TLS cert not renewed internal"),
    ),
    "search-debounce": More(
        ("did we add a debounce to search?", "AbortController cancels the previous fetch"),
        ("results flickered while typing", "stale results overwrote newer ones in the search box"),
        ("debounce", "AbortController"),
        ("search input race out of order responses", "cancel previous request typing"),
    ),
    "sigterm-pid1": More(
        (
            "why did node never get SIGTERM from sh -c?",
            "exec in the entrypoint so node gets SIGTERM",
        ),
        (
            "deploys were slow since pods wouldn't shut down",
            "the backend didn't get told to wind down",
        ),
        ("SIGTERM", "entrypoint"),
        ("pod terminating slow graceful shutdown", "signal not forwarded shell pid 1"),
    ),
    "uuid-v7": More(
        ("did we use UUIDv7 for the ledger tables?", "random v4 keys fragmenting the btree"),
        (
            "identifiers that sort chronologically for accounting records",
            "write speed fell as identifiers got scattered",
        ),
        ("UUIDv7", "primary key"),
        ("uuid primary key ordering insert performance", "uuid v7 vs v4"),
    ),
    "gil-thumbnails": More(
        ("was it the GIL that limited thumbnail threads?", "ProcessPoolExecutor for resizing"),
        (
            "eight threads were no quicker than one",
            "why adding threads gave no speedup for pictures",
        ),
        ("GIL", "thumbnails"),
        ("python threads GIL CPU bound image resize", "thread pool no speedup"),
    ),
    "leaked-key": More(
        ("what did we do about the leaked stripe key?", "gitleaks pre-commit hook"),
        (
            "the live credentials file that ended up on github",
            "revoking a credential after an accidental push",
        ),
        ("stripe key", "gitleaks"),
        ("secret committed to git rotate key", "leaked API key env file"),
    ),
    "playwright": More(
        ("why did we move from cypress to playwright?", "webkit support for e2e"),
        (
            "browser automation migration for apple's engine and several windows",
            "which automation tool covers apple's engine",
        ),
        ("cypress", "playwright"),
        ("e2e testing framework cypress playwright", "browser tests safari multiple tabs"),
    ),
    "n-plus-one-graphql": More(
        ("did we add a DataLoader for avatars?", "N+1 on the team page graphql"),
        (
            "300 SQL calls to show the people screen",
            "grouping lookups into one trip on that screen",
        ),
        ("DataLoader", "resolver"),
        ("graphql N+1 queries dataloader", "too many SQL queries per request"),
    ),
    "jwt-clock-skew-mobile": More(
        (
            "why were android users logged out right after login?",
            "token exp checked against the device clock",
        ),
        (
            "cheap handsets with wrong time kicking people out",
            "relying on the backend's time instead of the handset's",
        ),
        ("device clock", "token"),
        ("jwt expiry clock skew mobile", "token expired device time wrong"),
    ),
    "grpc-keepalive": More(
        ("why did the first grpc call fail with UNAVAILABLE?", "keepalive pings for the NLB"),
        (
            "the opening request to pricing erroring after ten quiet minutes",
            "the load balancer silently cutting quiet links",
        ),
        ("keepalive", "NLB"),
        ("grpc idle connection dropped load balancer", "keepalive timeout first request fails"),
    ),
    "pagination-offset": More(
        ("why did the transactions export skip rows?", "OFFSET pagination during inserts"),
        (
            "the dump missed records and duplicated others only during the day",
            "how we made the nightly-fine extract correct at busy hours",
        ),
        ("pagination", "export"),
        ("export skipped duplicated rows pagination", "LIMIT OFFSET inserts during export"),
    ),
    "feature-flag-cache": More(
        ("why did pods keep the flag cache for 60 minutes?", "flag cache TTL of 60 minutes"),
        (
            "disabling the purchase experiment didn't apply for half of users",
            "a kill switch that was ignored for a long while",
        ),
        ("feature flag", "cache"),
        ("feature flag turned off still enabled", "flag cache TTL pods"),
    ),
    "disk-full-journald": More(
        ("what filled the disk on the build agent?", "journalctl vacuum SystemMaxUse"),
        (
            "the build machine's storage filling though we cleared containers",
            "OS diagnostics eating all the storage",
        ),
        ("disk", "journald"),
        ("no space left on device logs", "journal logs disk full"),
    ),
}

KINDS = ("lexical", "paraphrase", "concepts")
# The fixed split: models and parameters are chosen on the tuning half (even positions) and
# reported on the held-back half (odd positions). A needle's queries all go to one half.
HELD_BACK = frozenset(n.key for i, n in enumerate(NEEDLES) if i % 2)


def queries(needle: Needle, kind: str) -> list[str | list[str]]:
    """Every query of one kind that looks for `needle`'s target."""
    more = MORE[needle.key]
    if kind == "lexical":
        return [needle.lexical, *more.lexical]
    if kind == "paraphrase":
        return [needle.paraphrase, *more.paraphrase]
    if kind == "concepts":
        return [list(more.concepts)]
    raise ValueError(f"unknown query kind {kind!r}")


assert set(MORE) == {n.key for n in NEEDLES}, "every needle needs its further queries"
