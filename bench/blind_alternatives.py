"""Rewrites of the held-back paraphrases, written from each question alone.

`quality_set.py`'s alternatives were written by the author of the targets, knowing them. These
were written later by someone who read only the questions below, never the targets, as Claude
would rewrite a question before calling `search_history`: the words an answer would plausibly
use. (The needles' keys, such as `sessions-to-redis`, were in view while writing; the words
came from the question.) `quality.py` measures them as "hybrid + blind alternatives".
"""

from __future__ import annotations

BLIND: dict[str, tuple[str, ...]] = {
    "where did we decide to keep login state instead of the main db": (
        "store user sessions in redis or memcached instead of postgres",
        "session storage moved out of the database to a cache",
    ),
    "where is sign-in state kept now": (
        "session store redis cookie jwt",
        "where are user sessions stored",
    ),
    "how we took pressure off the main database from sign-in lookups": (
        "session lookups hitting postgres moved to redis cache",
        "reduce database load from session queries",
    ),
    "why the live updates server kept eating RAM until the kernel killed it": (
        "websocket server memory leak OOM killed",
        "connections not cleaned up on disconnect memory growth",
    ),
    "the streaming service got OOM killed regularly": (
        "OOMKilled memory leak in the websocket or SSE server",
        "memory limit exceeded listeners never removed",
    ),
    "why did the push server's RAM keep growing": (
        "websocket memory leak event listeners not removed on close",
        "heap growing with each connection",
    ),
    "a check that broke only when some earlier case left a global tweak behind": (
        "flaky test depends on test order shared global state not reset",
        "monkeypatch or settings override leaking between tests",
    ),
    "that intermittent CI failure caused by leftover state from another suite": (
        "flaky test order dependent global state leaks between tests",
        "test isolation fixture teardown reset",
    ),
    "a check that broke depending on what ran earlier": (
        "test fails depending on test order pytest-randomly",
        "state leaking between tests order-dependent failure",
    ),
    "how did we speed up the purchase history lookup for large clients": (
        "slow orders query added a composite index",
        "order history endpoint query plan index customer_id created_at",
    ),
    "making the big clients' purchase list fast": (
        "orders query slow for large customers index pagination",
        "add index on customer orders query explain analyze",
    ),
    "that 4 second endpoint for big accounts": (
        "slow endpoint 4s large customers query index",
        "latency of the orders endpoint for big accounts sql",
    ),
    "why making the container took ages and which distro we moved to": (
        "docker build slow alpine musl wheels switched to debian slim",
        "docker image build time base image change",
    ),
    "the container that took ages to make": (
        "slow docker build compiling packages from source",
        "docker image build takes long base image",
    ),
    "which distro did we move to so numeric libraries came ready-made": (
        "switch from alpine to debian slim for numpy wheels",
        "prebuilt wheels manylinux musl base image",
    ),
    "why some profile pictures got rejected by object storage": (
        "s3 presigned url upload 403 signature mismatch content-type",
        "avatar upload to s3 rejected",
    ),
    "certain profile pictures refused by the storage bucket": (
        "s3 upload avatar 403 forbidden presigned url",
        "image upload rejected bucket policy content type",
    ),
    "the 403 on some user photo saves": (
        "403 forbidden s3 presigned upload avatar",
        "signature does not match content-type header upload",
    ),
    "why memory in the go proxy crept upward under steady load": (
        "go memory leak timer ticker not stopped",
        "golang heap growth pprof leak in the proxy",
    ),
    "the gateway's resident size climbing while goroutine count was flat": (
        "go RSS growing pprof heap timers time.After leak",
        "memory leak in go gateway without goroutine leak",
    ),
    "what kept the go service growing at constant traffic": (
        "golang memory leak pprof heap profile",
        "go service memory growth timer or buffer leak",
    ),
    "infra changes were blocked because an aborted CI pipeline kept holding a claim": (
        "terraform state lock stuck force-unlock",
        "cancelled pipeline left a lock on the state",
    ),
    "plans in CI all erroring after an aborted pipeline": (
        "terraform plan error acquiring the state lock",
        "dynamodb lock held by cancelled CI job force-unlock",
    ),
    "a stuck hold from a killed deployment blocked everything": (
        "stale lock after deployment killed terraform state lock",
        "lock not released after the job was cancelled",
    ),
    "why didn't we go with a document database for the finance summaries app": (
        "chose postgres over mongodb for reporting",
        "relational database instead of mongo joins transactions",
    ),
    "why we kept a tabular store for finance summaries": (
        "postgres instead of mongodb financial reports relational",
        "sql database chosen for accounting data",
    ),
    "our call against a schemaless store": (
        "decided not to use mongodb chose postgres",
        "document database vs relational decision",
    ),
    "why lengthy media conversions executed in parallel twice": (
        "celery task executed twice visibility timeout redis broker",
        "long video transcoding job ran twice duplicate task",
    ),
    "media conversions executing on two machines simultaneously": (
        "celery task redelivered to another worker visibility timeout",
        "duplicate transcoding jobs acks_late",
    ),
    "double execution of very lengthy background work": (
        "background job runs twice celery visibility_timeout",
        "long-running task redelivered duplicate execution",
    ),
    "how did we shrink the repository after compiled output had been checked in": (
        "git filter-repo remove build artifacts from history",
        "rewrite git history to remove large files",
    ),
    "the 2.3 GB checkout we trimmed": (
        "large git repository cleaned history filter-branch bfg",
        "repo size reduced by removing binaries from history",
    ),
    "removing compiled output from old revisions": (
        "git filter-repo strip build directory from history",
        "purge committed artifacts from git history force push",
    ),
    "what representation did we settle on for currency values, and why": (
        "store money as integer cents not floats",
        "decimal vs float for prices rounding",
    ),
    "the rule about one-penny rounding differences": (
        "floating point rounding error money cents integers",
        "off by one cent totals decimal",
    ),
    "how currency values are held to avoid rounding drift": (
        "amounts stored as integer cents",
        "use decimal not float for money",
    ),
    "same person signed up twice because of diacritics": (
        "unicode normalization NFC email duplicate accounts",
        "unique constraint on email with accented characters",
    ),
    "the same address registered twice with a diacritic": (
        "email duplicates unicode normalisation NFC NFKC",
        "normalize unicode before the uniqueness check",
    ),
    "identical-looking addresses the database accepted twice": (
        "unicode normalization duplicate emails unique index",
        "composed vs decomposed characters NFC",
    ),
    "checkout got slow now and then while machines sat mostly idle": (
        "cpu throttling kubernetes limits latency spikes",
        "cfs quota throttling p99 latency low cpu usage",
    ),
    "tail response-time jumps at 30% host usage": (
        "p99 latency spikes cpu throttling cgroup limits",
        "remove cpu limits kubernetes throttling",
    ),
    "the service stalled now and then though cores were free": (
        "cpu throttled by cfs quota container limits",
        "latency spikes despite idle cpu",
    ),
    "how did we organise the frontend codebases together": (
        "frontend monorepo pnpm workspaces turborepo",
        "move apps and shared ui library into one monorepo",
    ),
    "putting all frontend projects and the component library in a single repository": (
        "monorepo workspaces design system package",
        "pnpm workspace nx turborepo migration",
    ),
    "we stopped releasing the design system as a package": (
        "design system in the monorepo instead of publishing to npm",
        "stop publishing component library versions workspace",
    ),
    "why our observability invoice shot up": (
        "datadog logging bill increased debug logs ingestion",
        "log volume costs after release",
    ),
    "monitoring costs jumped in spring": (
        "datadog bill spike log ingestion",
        "logging costs increased verbose logs",
    ),
    "the vendor charge that tripled after a release": (
        "log ingestion bill tripled debug logging left on",
        "observability costs after deploy log volume",
    ),
    "spreadsheet software garbled accented characters in downloaded reports": (
        "csv export excel utf-8 bom encoding",
        "excel shows mojibake umlauts in csv",
    ),
    "finance saw garbage instead of ä ö ü": (
        "csv encoding excel utf-8 byte order mark",
        "umlauts broken in excel csv export",
    ),
    "German letters broken when opening our export": (
        "excel csv utf-8 bom umlauts",
        "export file encoding for excel",
    ),
    "storage for the audit log ballooned although we purge expired entries": (
        "postgres table bloat autovacuum after delete",
        "dead tuples vacuum audit_log table size",
    ),
    "the log of events that kept ballooning though we purge expired entries": (
        "table bloat after deletes autovacuum settings",
        "vacuum not reclaiming space dead rows partitioning",
    ),
    "bloat after the 90-day purge": (
        "postgres bloat autovacuum scale factor dead tuples",
        "delete old rows vacuum table size partition",
    ),
    "the monitoring dashboard suddenly looked untrusted in browsers overnight": (
        "tls certificate expired grafana lets encrypt renewal",
        "certificate renewal failed https warning",
    ),
    "the privacy warning on a company dashboard": (
        "expired certificate cert-manager renewal failed",
        "your connection is not private tls cert",
    ),
    "TLS refresh broke since the host was private": (
        "cert-manager http01 challenge failed internal host use dns01",
        "lets encrypt renewal private network dns challenge",
    ),
    "rollouts were slow because the app ignored the shutdown signal": (
        "sigterm not handled pid 1 graceful shutdown",
        "pods take 30 seconds terminationGracePeriod sigkill",
    ),
    "deploys were slow since pods wouldn't shut down": (
        "sigterm ignored process pid 1 tini exec",
        "graceful shutdown termination grace period",
    ),
    "the backend didn't get told to wind down": (
        "sigterm not forwarded to the app shell entrypoint pid 1",
        "signal handling docker exec form",
    ),
    "image shrinking didn't speed up when we added more parallelism": (
        "thumbnail generation threads GIL use multiprocessing",
        "python threads no speedup cpu bound process pool",
    ),
    "eight threads were no quicker than one": (
        "python GIL cpu-bound threads ProcessPoolExecutor",
        "threading gives no speedup use processes",
    ),
    "why adding threads gave no speedup for pictures": (
        "image resizing GIL threads multiprocessing",
        "pillow thumbnails thread pool cpu bound",
    ),
    "which browser automation framework replaced the old one and why": (
        "migrated from selenium or cypress to playwright",
        "end to end test framework switch webkit safari",
    ),
    "browser automation migration for apple's engine and several windows": (
        "playwright webkit multiple tabs cypress limitation",
        "e2e tests safari support multi-tab",
    ),
    "which automation tool covers apple's engine": (
        "playwright webkit safari e2e testing",
        "browser testing tool with safari support",
    ),
    "some handsets kicked people out immediately because their time was wrong": (
        "jwt expired clock skew mobile devices logged out",
        "token exp iat device clock wrong leeway",
    ),
    "cheap handsets with wrong time kicking people out": (
        "android clock skew jwt token expiry logout",
        "device time wrong token rejected leeway",
    ),
    "relying on the backend's time instead of the handset's": (
        "use server time for token expiry not device clock",
        "clock skew jwt validation server side",
    ),
    "why the daytime dump lost some entries and doubled others": (
        "offset pagination missing and duplicate rows concurrent inserts",
        "export uses limit offset switch to keyset cursor pagination",
    ),
    "the dump missed records and duplicated others only during the day": (
        "pagination offset skipped duplicated rows while writes happen",
        "keyset pagination export consistency",
    ),
    "how we made the nightly-fine extract correct at busy hours": (
        "cursor based pagination instead of offset for the export",
        "export consistent snapshot keyset pagination",
    ),
    "the CI box ran out of room even after we pruned images": (
        "disk full journald logs vacuum",
        "ci runner disk space docker prune not enough var log",
    ),
    "the build machine's storage filling though we cleared containers": (
        "disk space journal logs SystemMaxUse",
        "du var log journal ci runner disk full",
    ),
    "OS diagnostics eating all the storage": (
        "journald logs filling disk journalctl vacuum",
        "system logs using disk space limit",
    ),
}
