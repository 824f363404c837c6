"""Generate realistic Claude Code transcript trees (the layout of ``~/.claude/projects/``).

Record shapes are copied from real Claude Code 2.0.x/2.1.x files (see /work/shared/transcripts):
one API message split over several lines sharing ``message.id``, tool results with
``toolUseResult``, meta lines, compaction, progress/system/attachment lines, subagents in
``<session>/subagents/`` and legacy flat ``agent-<8hex>.jsonl`` files.

Counting rules used by ``CorpusStats`` (every ``.jsonl`` file, sidechains included):
- a *message* is a user prompt or an assistant API message (distinct ``message.id``);
- a *prompt* is a ``type == "user"`` record that is not ``isMeta``, not ``isCompactSummary``
  and has no ``tool_result`` block;
- ``lines`` counts every line of every ``.jsonl`` file, broken ones included;
- ``files`` counts ``.jsonl`` files (``.meta.json`` files are not counted).

CLI: ``python bench/corpus.py OUT_DIR --messages N [--seed S]`` prints the stats as JSON.
"""

from __future__ import annotations

import argparse
import base64
import functools
import json
import multiprocessing
import os
import random
import re
import sys
import time
from collections.abc import Callable, Sequence
from concurrent.futures import ProcessPoolExecutor
from dataclasses import asdict, dataclass, field
from datetime import datetime
from pathlib import Path
from typing import Any, TypeVar

T = TypeVar("T")

# --------------------------------------------------------------------------------------------
# Public API
# --------------------------------------------------------------------------------------------


@dataclass(slots=True)
class CorpusStats:
    projects: int = 0  # distinct cwds
    sessions: int = 0  # distinct sessionIds that have messages
    prompts: int = 0
    assistant: int = 0  # distinct assistant message.ids
    tool_results: int = 0
    lines: int = 0
    broken_lines: int = 0
    files: int = 0


def encode_project_dir(cwd: str) -> str:
    """Claude Code's lossy folder name: every char that is not a letter or digit becomes '-'."""
    return re.sub(r"[^A-Za-z0-9]", "-", cwd)


def generate(
    root: Path,
    *,
    messages: int,
    seed: int = 0,
    projects: int = 8,
    broken_lines: bool = True,
    workers: int | None = None,
) -> CorpusStats:
    """Write a transcript tree with exactly ``messages`` prompts + assistant messages.

    Sessions are independent, so large trees are written by ``workers`` processes (default:
    one per CPU, up to 8, from 20,000 messages); the bytes do not depend on the worker count.
    """
    root = Path(root)
    root.mkdir(parents=True, exist_ok=True)
    specs = _project_specs(max(1, projects))
    plans = _plan_sessions(random.Random(seed), messages, len(specs), broken_lines, seed)
    jobs = [(root, specs[p.project], p) for p in plans]
    if workers is None:
        workers = min(8, os.cpu_count() or 1) if messages >= 20_000 else 1
    if workers > 1 and "fork" in multiprocessing.get_all_start_methods():
        # many small contiguous chunks balance the uneven session sizes
        size = max(1, len(jobs) // (workers * 8))
        chunks = [jobs[i : i + size] for i in range(0, len(jobs), size)]
        ctx = multiprocessing.get_context("fork")
        with ProcessPoolExecutor(workers, mp_context=ctx) as pool:
            parts = list(pool.map(_write_sessions, chunks))
    else:
        parts = [_write_sessions(jobs)]
    stats = CorpusStats(
        projects=len({spec.cwd for _, spec, _ in jobs}),
        sessions=len(plans),  # every planned session has at least one message
    )
    for part in parts:
        for name in ("prompts", "assistant", "tool_results", "lines", "broken_lines", "files"):
            setattr(stats, name, getattr(stats, name) + getattr(part, name))
    return stats


def append_session_lines(path: Path, n_messages: int, session_id: str, cwd: str, seed: int) -> int:
    """Append prompt/assistant exchanges to a session file, as a live session would.

    Chains onto the last record of the file and keeps timestamps increasing. Returns the number
    of messages (prompts + assistant messages) appended, which is exactly ``n_messages``.
    """
    path = Path(path)
    rng = random.Random(f"append/{seed}/{session_id}")
    last = _last_record(path)
    start_ms = _parse_ms(last.get("timestamp")) if last else _T_END - 3_600_000
    version = str(last.get("version") or _NEW_VERSIONS[-1]) if last else _NEW_VERSIONS[-1]
    spec = _match_spec(cwd)
    with _Out(path, "ab") as out:
        s = _Stream(
            out=out,
            rng=rng,
            clock=_Clock(start_ms + 5_000),
            stats=CorpusStats(),
            cwd=cwd,
            session_id=session_id,
            version=version,
            branch=str(last.get("gitBranch") or "main") if last else "main",
            model=_model_for(version, rng),
            topics=spec.topics,
            modern=_is_modern(version),
            parent=last.get("uuid") if last else None,
        )
        remaining = n_messages
        while remaining > 0:
            remaining -= 1
            k = min(_turn_length(rng), remaining)
            if remaining - k == 1:
                k += 1  # never leave a single message: a lone prompt would need no answer
            remaining -= k
            _exchange(s, k, 0, None)
    return n_messages


# --------------------------------------------------------------------------------------------
# Vocabulary
# --------------------------------------------------------------------------------------------


@dataclass(frozen=True, slots=True)
class Topic:
    key: str
    nouns: tuple[str, ...]
    names: tuple[str, ...]  # code identifiers (snake_case, camelCase, CONSTANTS)
    files: tuple[str, ...]
    errors: tuple[str, ...]
    cmds: tuple[str, ...]
    facts: tuple[str, ...]
    langs: tuple[str, ...]


_TOPICS: dict[str, Topic] = {
    t.key: t
    for t in (
        Topic(
            "auth",
            (
                "JWT access token",
                "refresh token rotation",
                "token expiry",
                "auth middleware",
                "OAuth callback",
                "session cookie",
                "password reset flow",
            ),
            (
                "verify_jwt",
                "refreshAccessToken",
                "decode_token",
                "AuthMiddleware",
                "TOKEN_TTL_SECONDS",
                "get_current_user",
                "issueRefreshToken",
            ),
            (
                "src/auth/jwt.py",
                "src/auth/middleware.py",
                "app/api/routes/login.py",
                "web/src/hooks/useAuth.ts",
                "tests/test_auth.py",
            ),
            (
                "HTTP 401 Unauthorized",
                "jwt.exceptions.ExpiredSignatureError: Signature has expired",
                "HTTP 403 Forbidden",
                "jwt.exceptions.InvalidAudienceError: Invalid audience",
            ),
            (
                "pytest tests/test_auth.py -k refresh -x",
                "curl -i -H 'Authorization: Bearer $TOKEN' localhost:8000/api/me",
                "python -m jwt decode $TOKEN",
            ),
            (
                "The refresh token was signed with the access-token secret, so every refresh "
                "after a key rotation returned HTTP 401.",
                "Clock skew between the API pods and the identity provider makes tokens look "
                "expired; a leeway of 30 seconds in `jwt.decode` fixes it.",
                "The `aud` claim must match the client id, otherwise PyJWT raises "
                "InvalidAudienceError.",
            ),
            ("python", "ts"),
        ),
        Topic(
            "flaky",
            (
                "flaky test",
                "race condition in the test suite",
                "intermittent CI failure",
                "test isolation",
                "pytest fixture teardown",
                "random test ordering",
            ),
            (
                "test_concurrent_writes",
                "wait_for_condition",
                "tmp_db_session",
                "freeze_time",
                "retryUntilVisible",
                "FLAKY_RERUNS",
            ),
            (
                "tests/integration/test_worker.py",
                "tests/conftest.py",
                "pytest.ini",
                "tests/e2e/checkout.spec.ts",
            ),
            (
                "AssertionError: assert 2 == 3",
                "TimeoutError: condition not met after 5.0s",
                "FAILED tests/integration/test_worker.py::test_concurrent_writes",
            ),
            (
                "pytest -p no:randomly tests/integration -x",
                "pytest --count=50 tests/integration/test_worker.py::test_concurrent_writes",
                "pytest -n 8 --dist loadscope",
            ),
            (
                "The test is flaky because the fixture shares one database between xdist "
                "workers, so two tests insert the same primary key.",
                "Replacing the fixed `sleep(0.5)` with `wait_for_condition` removes the timing "
                "dependency on slow CI runners.",
            ),
            ("python", "ts"),
        ),
        Topic(
            "docker",
            (
                "Docker image size",
                "multi-stage build",
                "layer caching",
                "container healthcheck",
                "docker compose network",
                "base image upgrade",
            ),
            ("HEALTHCHECK", "builder_stage", "BUILDKIT_INLINE_CACHE", "entrypoint_sh", "APP_PORT"),
            ("Dockerfile", "docker-compose.yml", ".dockerignore", "deploy/Dockerfile.worker"),
            (
                "exec /app/entrypoint.sh: no such file or directory",
                'ERROR: failed to solve: process "/bin/sh -c pip install -r requirements.txt" '
                "did not complete successfully: exit code: 1",
                "container api-1 is unhealthy",
            ),
            (
                "docker build -t api:dev .",
                "docker compose up -d --build",
                "docker image ls api",
                "docker logs -f api-1 --tail 100",
            ),
            (
                "Copying the whole context before `pip install` invalidates the dependency layer "
                "on every source change; copy requirements.txt first.",
                "The entrypoint script has CRLF line endings, which is why exec reports 'no such "
                "file or directory'.",
            ),
            ("docker", "yaml", "sh"),
        ),
        Topic(
            "migrations",
            (
                "database migration",
                "Alembic revision",
                "schema change",
                "foreign key constraint",
                "index on created_at",
                "zero-downtime migration",
                "backfill job",
            ),
            ("add_column", "user_accounts", "created_at", "down_revision", "backfill_orders"),
            (
                "migrations/versions/4f2a9c1e_add_orders_index.py",
                "alembic.ini",
                "src/db/models.py",
                "db/schema.sql",
            ),
            (
                "psycopg2.errors.UniqueViolation: duplicate key value violates unique constraint "
                '"users_email_key"',
                "alembic.util.exc.CommandError: Multiple head revisions are present",
                "ERROR 1205 (HY000): Lock wait timeout exceeded",
            ),
            (
                "alembic upgrade head",
                "alembic revision --autogenerate -m 'add orders index'",
                "psql $DATABASE_URL -c '\\d orders'",
            ),
            (
                "`CREATE INDEX CONCURRENTLY` cannot run inside a transaction, so the migration "
                "needs `op.get_context().autocommit_block()`.",
                "Two branches both created a revision on top of the same parent, hence the "
                "multiple heads; `alembic merge heads` fixes it.",
            ),
            ("python", "sql"),
        ),
        Topic(
            "caching",
            (
                "Redis cache",
                "cache invalidation",
                "cache TTL",
                "cache stampede",
                "LRU cache",
                "memoization",
                "stale reads",
            ),
            ("cache_key_for", "lru_cache", "CACHE_TTL", "invalidate_user_cache", "getOrSet"),
            ("src/cache/redis_cache.py", "src/services/pricing.py", "config/cache.yaml"),
            (
                "redis.exceptions.ConnectionError: Error 111 connecting to localhost:6379. "
                "Connection refused.",
                "HTTP 503 Service Unavailable",
                "cache hit ratio dropped to 12%",
            ),
            (
                "redis-cli --scan --pattern 'user:*' | head",
                "redis-cli INFO stats | grep keyspace",
                "python -m cProfile -s cumtime scripts/warm_cache.py",
            ),
            (
                "All keys expire at the same second after a deploy, so the cache stampede hits "
                "the database at once; adding jitter to the TTL spreads the load.",
                "The cache key does not include the tenant id, so users could read stale prices "
                "from another tenant.",
            ),
            ("python",),
        ),
        Topic(
            "ci",
            (
                "CI pipeline",
                "GitHub Actions workflow",
                "build matrix",
                "artifact upload",
                "dependency cache key",
                "release job",
            ),
            ("GITHUB_TOKEN", "workflow_dispatch", "run_tests", "cache_key", "needs_build"),
            (
                ".github/workflows/ci.yml",
                ".github/workflows/release.yml",
                "Makefile",
                "scripts/ci/run_tests.sh",
            ),
            (
                "Error: Process completed with exit code 137.",
                "The job running on runner GitHub Actions 12 has exceeded the maximum execution "
                "time of 60 minutes.",
                "npm ERR! code ERESOLVE",
            ),
            (
                "gh run list --workflow ci.yml --limit 5",
                "gh run view 8812345 --log-failed",
                "act -j test",
            ),
            (
                "Exit code 137 means the runner killed the job for using too much memory.",
                "The cache key hashes only package.json, not the lockfile, so CI restores stale "
                "node_modules.",
            ),
            ("yaml", "sh"),
        ),
        Topic(
            "react",
            (
                "React hook",
                "useEffect dependency array",
                "stale closure",
                "re-render loop",
                "context provider",
                "controlled input",
                "suspense boundary",
            ),
            (
                "useEffect",
                "useMemo",
                "useCallback",
                "setIsLoading",
                "fetchUserProfile",
                "useDebounce",
            ),
            (
                "web/src/components/UserProfile.tsx",
                "web/src/hooks/useDebounce.ts",
                "web/src/App.tsx",
                "web/src/context/ThemeContext.tsx",
            ),
            (
                "Warning: Maximum update depth exceeded.",
                "React Hook useEffect has a missing dependency: 'fetchUserProfile'.",
                "TypeError: Cannot read properties of undefined (reading 'map')",
            ),
            ("npm run lint -- --fix", "npx vitest run src/hooks", "npm run build"),
            (
                "The effect sets state that is also in its dependency array, which causes the "
                "re-render loop; wrapping the callback in `useCallback` breaks the cycle.",
                "The interval callback captures the first render's state - a classic stale "
                "closure; use the functional form of `setState`.",
            ),
            ("ts",),
        ),
        Topic(
            "rust",
            (
                "borrow checker",
                "lifetime annotation",
                "mutable borrow",
                "Arc<Mutex<T>>",
                "trait object",
                "async runtime",
            ),
            ("index_writer", "push_item", "parse_segment", "SegmentReader", "tokio_spawn"),
            ("src/app/main.rs", "src/index/writer.rs", "src/lib.rs", "Cargo.toml"),
            (
                "error[E0502]: cannot borrow `self.items` as mutable because it is also "
                "borrowed as immutable",
                "error[E0382]: borrow of moved value: `config`",
                "error[E0499]: cannot borrow `*buf` as mutable more than once at a time",
            ),
            ("cargo build", "cargo clippy -- -D warnings", "cargo test --lib index::tests"),
            (
                "The borrow checker rejects the loop (E0502) because the iterator borrows "
                "`self.items` immutably while `push` needs a mutable borrow.",
                "`config` is moved into the spawned task; clone the Arc before `tokio::spawn` "
                "to fix E0382.",
            ),
            ("rust",),
        ),
        Topic(
            "k8s",
            (
                "Kubernetes deployment",
                "readiness probe",
                "pod eviction",
                "Helm chart",
                "resource limits",
                "horizontal pod autoscaler",
                "ingress controller",
            ),
            ("livenessProbe", "readinessProbe", "replicaCount", "memory_limit", "hpa_target"),
            ("deploy/k8s/deployment.yaml", "charts/api/values.yaml", "deploy/k8s/ingress.yaml"),
            (
                "Back-off restarting failed container (CrashLoopBackOff)",
                "0/3 nodes are available: 3 Insufficient memory.",
                "Readiness probe failed: HTTP probe failed with statuscode: 503",
                "OOMKilled",
            ),
            (
                "kubectl get pods -n staging",
                "kubectl describe pod api-7d9f8b6c4-x2kqp -n staging",
                "helm upgrade --install api charts/api -f values-staging.yaml",
                "kubectl logs deploy/api -n staging --since=10m",
            ),
            (
                "The readiness probe hits /health before migrations finish, so the pod never "
                "becomes ready; add an initialDelaySeconds or a startupProbe.",
                "The memory limit of 256Mi is below the JVM heap, so the container is OOMKilled.",
            ),
            ("yaml", "sh"),
        ),
        Topic(
            "logging",
            (
                "structured logging",
                "log level",
                "request id correlation",
                "log rotation",
                "JSON log format",
                "noisy debug logs",
            ),
            ("get_logger", "LOG_LEVEL", "request_id", "RotatingFileHandler", "logContext"),
            ("src/logging_config.py", "src/middleware/request_id.py", "config/logging.yaml"),
            (
                "ValueError: Unable to configure handler 'file'",
                "OSError: [Errno 28] No space left on device",
                "duplicate log lines in production",
            ),
            (
                "journalctl -u api --since '1 hour ago' | grep ERROR",
                "tail -f /var/log/api/app.log | jq .",
                "grep -c request_id logs/app.log",
            ),
            (
                "The duplicate lines come from propagating to the root logger after adding a "
                "handler to the module logger; set `propagate = False`.",
            ),
            ("python", "yaml"),
        ),
        Topic(
            "perf",
            (
                "performance profiling",
                "flame graph",
                "N+1 query",
                "hot loop",
                "memory leak",
                "p99 latency",
                "allocation pressure",
            ),
            ("build_report", "perf_counter", "select_related", "prefetch_related", "tracemalloc"),
            (
                "src/services/report_builder.py",
                "scripts/bench_search.py",
                "src/api/views/orders.py",
            ),
            (
                "p99 latency went from 120ms to 2.4s",
                "MemoryError",
                "Killed (OOM) after processing 1.2M rows",
            ),
            (
                "py-spy record -o profile.svg -- python scripts/bench_search.py",
                "python -m cProfile -o out.prof src/services/report_builder.py",
                "hyperfine 'python scripts/bench_search.py'",
            ),
            (
                "The flame graph shows 70% of the time in `json.loads` inside the loop; parsing "
                "once outside the loop removes the hot spot.",
                "Each order triggers one query for its customer - an N+1 query; "
                "`select_related('customer')` turns it into a join.",
            ),
            ("python",),
        ),
        Topic(
            "http",
            (
                "rate limiting",
                "retry with exponential backoff",
                "HTTP client timeout",
                "idempotency key",
                "webhook signature",
                "pagination cursor",
            ),
            ("RetryPolicy", "backoff_factor", "verify_signature", "next_cursor", "idempotencyKey"),
            ("src/clients/stripe_client.py", "src/webhooks/handlers.py", "src/api/pagination.py"),
            (
                "HTTP 429 Too Many Requests",
                "httpx.ReadTimeout",
                "HTTP 502 Bad Gateway",
                "HTTP 503 Service Unavailable",
            ),
            (
                "curl -sS -D - https://api.example.com/v1/charges?limit=100 -o /dev/null",
                "pytest tests/test_webhooks.py -q",
            ),
            (
                "Retrying POST requests without an idempotency key can charge a customer twice.",
                "The client ignores the Retry-After header on HTTP 429 and retries immediately.",
            ),
            ("python", "ts"),
        ),
        Topic(
            "search",
            (
                "full-text search index",
                "tokenizer",
                "BM25 ranking",
                "embedding vectors",
                "nearest neighbour search",
                "incremental indexing",
            ),
            ("IndexWriter", "tokenize_query", "bm25_score", "embed_batch", "hnsw_index"),
            ("src/search/indexer.py", "src/search/query_parser.py", "src/search/embeddings.py"),
            (
                "ValueError: Schema field 'body' is not indexed",
                "IndexError: list index out of range",
                "recall@10 dropped to 0.61",
            ),
            ("python scripts/reindex.py --full", "pytest tests/search -q"),
            (
                "The tokenizer lowercases the query but not the indexed text, so exact "
                "identifiers like `camelCase` never match.",
                "Raising ef_search from 16 to 64 brings recall@10 back above 0.95 at a small "
                "latency cost.",
            ),
            ("python", "rust"),
        ),
        Topic(
            "async",
            (
                "asyncio event loop",
                "deadlock",
                "task cancellation",
                "thread pool",
                "background worker",
                "queue backpressure",
            ),
            ("gather_results", "wait_for", "run_in_executor", "TaskGroup", "consume_queue"),
            ("src/worker/consumer.py", "src/worker/scheduler.py", "src/utils/concurrency.py"),
            (
                "RuntimeError: This event loop is already running",
                "asyncio.exceptions.CancelledError",
                "Task was destroyed but it is pending!",
            ),
            ("python -X dev -m worker.consumer", "pytest tests/worker -q -p no:cacheprovider"),
            (
                "A blocking `requests.get` inside the coroutine stalls the event loop; run it "
                "with `run_in_executor` or switch to httpx.AsyncClient.",
            ),
            ("python",),
        ),
        Topic(
            "git",
            (
                "merge conflict",
                "rebase onto main",
                "pre-commit hook",
                "git bisect",
                "cherry-pick",
                "release branch",
            ),
            ("pre_commit", "bisect_run", "release_tag", "changelog_entry"),
            (".pre-commit-config.yaml", "CHANGELOG.md", ".gitignore"),
            (
                "CONFLICT (content): Merge conflict in src/app/settings.py",
                "error: failed to push some refs to 'origin'",
                "hint: Updates were rejected because the tip of your current branch is behind",
            ),
            (
                "git status",
                "git log --oneline -10",
                "git diff --stat",
                "git rebase origin/main",
                "pre-commit run --all-files",
            ),
            ("`git bisect run pytest -x tests/test_api.py` finds the bad commit automatically.",),
            ("sh", "yaml"),
        ),
        Topic(
            "config",
            (
                "environment variables",
                "settings validation",
                "feature flag",
                "secrets management",
                "config reload",
            ),
            ("Settings", "DATABASE_URL", "FEATURE_NEW_CHECKOUT", "load_dotenv", "get_settings"),
            ("src/app/settings.py", ".env.example", "config/production.toml"),
            (
                "pydantic_core._pydantic_core.ValidationError: 1 validation error for Settings",
                "KeyError: 'DATABASE_URL'",
            ),
            ("python -c 'from app.settings import get_settings; print(get_settings())'",),
            ("`get_settings` is cached with lru_cache, so tests must call cache_clear().",),
            ("python",),
        ),
        Topic(
            "typescript",
            (
                "TypeScript types",
                "generic constraint",
                "strict null checks",
                "discriminated union",
                "module resolution",
            ),
            ("strictNullChecks", "parseResponse", "ApiResult", "fetchJson", "isDefined"),
            ("web/src/types/api.ts", "web/tsconfig.json", "web/src/lib/fetcher.ts"),
            (
                "TS2322: Type 'string | undefined' is not assignable to type 'string'.",
                "TS2345: Argument of type 'number' is not assignable to parameter of type "
                "'string'.",
                "TS7016: Could not find a declaration file for module 'lodash'.",
            ),
            ("npx tsc --noEmit", "npm run typecheck"),
            ("A discriminated union on `status` lets the compiler narrow `data` safely.",),
            ("ts",),
        ),
        Topic(
            "go",
            (
                "goroutine leak",
                "context cancellation",
                "HTTP handler",
                "connection pool",
                "graceful shutdown",
            ),
            ("ServeHTTP", "ctx_done", "NewStore", "maxIdleConns", "shutdownTimeout"),
            ("cmd/server/main.go", "internal/store/postgres.go", "internal/api/handlers.go"),
            (
                "panic: runtime error: invalid memory address or nil pointer dereference",
                "context deadline exceeded",
                "fatal error: all goroutines are asleep - deadlock!",
            ),
            ("go test ./... -race", "go vet ./...", "go run ./cmd/server"),
            ("The goroutine blocks on an unbuffered channel after the request context is done.",),
            ("go",),
        ),
    )
}

_GENERIC = ("git", "config", "flaky", "logging")


@dataclass(frozen=True, slots=True)
class _ProjectSpec:
    cwd: str
    topics: tuple[str, ...]
    branch: str


# The last two differ only by '-' vs '_': same folder, two cwds (the encoding is lossy).
_BASE_PROJECTS = (
    _ProjectSpec("/home/dev/work/payments-api", ("auth", "migrations", "caching", "http"), "main"),
    _ProjectSpec("/home/dev/work/web-dashboard", ("react", "typescript", "ci", "perf"), "main"),
    _ProjectSpec("/home/dev/src/rust_indexer", ("rust", "search", "perf", "async"), "master"),
    _ProjectSpec("/home/dev/work/infra.k8s", ("k8s", "docker", "ci", "logging"), "main"),
    _ProjectSpec("/Users/sam/code/ml-pipeline", ("async", "perf", "docker", "config"), "main"),
    _ProjectSpec("/home/dev/src/go-gateway", ("go", "http", "k8s", "logging"), "main"),
    _ProjectSpec("/home/dev/projects/memtui", ("search", "async", "config", "flaky"), "main"),
    _ProjectSpec("/home/dev/work/payments_api", ("auth", "flaky", "git", "migrations"), "develop"),
)


def _project_specs(n: int) -> list[_ProjectSpec]:
    specs = list(_BASE_PROJECTS[:n])
    keys = sorted(_TOPICS)
    for i in range(len(specs), n):
        r = random.Random(f"project/{i}")
        specs.append(
            _ProjectSpec(f"/home/dev/work/service-{i:03d}", tuple(r.sample(keys, 3)), "main")
        )
    return specs


def _match_spec(cwd: str) -> _ProjectSpec:
    for spec in _BASE_PROJECTS:
        if spec.cwd == cwd:
            return spec
    return _ProjectSpec(cwd, ("auth", "caching", "flaky", "ci"), "main")


# --------------------------------------------------------------------------------------------
# Versions, time, ids
# --------------------------------------------------------------------------------------------

_OLD_VERSIONS = ("2.0.8", "2.0.14", "2.0.22", "2.0.28", "2.0.35", "2.0.42", "2.0.55", "2.0.64")
_NEW_VERSIONS = (
    "2.1.3",
    "2.1.9",
    "2.1.15",
    "2.1.27",
    "2.1.38",
    "2.1.39",
    "2.1.51",
    "2.1.72",
    "2.1.87",
    "2.1.101",
    "2.1.114",
)
_OLD_SHARE = 0.25  # first quarter of the timeline: 2.0.x with flat agent files
_T_END = 1_777_593_600_000  # 2026-05-01T00:00:00Z
_T_SPAN = 548 * 86_400_000  # ~18 months


def _is_modern(version: str) -> bool:
    """2.1.87+ writes entrypoint/promptId and hook attachments instead of hook progress lines."""
    parts = version.split(".")
    return parts[:2] == ["2", "1"] and int(parts[2]) >= 87


def _is_old(version: str) -> bool:
    return version.startswith(("1.", "2.0."))


def _model_for(version: str, rng: random.Random) -> str:
    if _is_old(version):
        return _pick(rng, ("claude-sonnet-4-5-20250929", "claude-opus-4-1-20250805"))
    if _is_modern(version):
        return _pick(rng, ("claude-opus-4-7", "claude-opus-4-6", "claude-sonnet-4-6"))
    return _pick(rng, ("claude-opus-4-5-20251101", "claude-opus-4-6", "claude-sonnet-4-5-20250929"))


def _pick(rng: random.Random, seq: Sequence[T]) -> T:
    """rng.choice without its checks (hot path)."""
    return seq[int(rng.random() * len(seq))]


def _ri(rng: random.Random, lo: int, hi: int) -> int:
    """randint(lo, hi) without its argument checks: it dominates the profile otherwise."""
    return lo + int(rng.random() * (hi - lo + 1))


class _Clock:
    """Milliseconds since the epoch; only moves forward."""

    __slots__ = ("_min", "_prefix", "ms")

    def __init__(self, ms: int) -> None:
        self.ms = ms
        self._min = -1
        self._prefix = ""

    def tick(self, rng: random.Random, lo: int, hi: int) -> str:
        self.ms += lo + int(rng.random() * (hi - lo + 1))
        minute, ms = divmod(self.ms, 60_000)
        if minute != self._min:  # most ticks stay in the same minute: reuse its formatting
            self._min, self._prefix = minute, _iso(minute * 60_000)[:-7]
        sec, milli = divmod(ms, 1000)
        return f"{self._prefix}{sec:02d}.{milli:03d}Z"


def _iso(ms: int) -> str:
    sec, milli = divmod(ms, 1000)
    t = time.gmtime(sec)
    return (
        f"{t.tm_year:04d}-{t.tm_mon:02d}-{t.tm_mday:02d}T"
        f"{t.tm_hour:02d}:{t.tm_min:02d}:{t.tm_sec:02d}.{milli:03d}Z"
    )


def _parse_ms(ts: Any) -> int:
    if not isinstance(ts, str):
        return _T_END
    try:
        return int(datetime.fromisoformat(ts.replace("Z", "+00:00")).timestamp() * 1000)
    except ValueError:
        return _T_END


def _uuid(rng: random.Random) -> str:
    h = f"{rng.getrandbits(128):032x}"
    return f"{h[:8]}-{h[8:12]}-4{h[13:16]}-{'89ab'[int(h[16], 16) & 3]}{h[17:20]}-{h[20:]}"


_B64_TO_B58 = str.maketrans("+/0OIl=", "abcdefg")


def _tok(rng: random.Random, n: int) -> str:
    """Base58-looking id (msg_, toolu_, req_ suffixes)."""
    return base64.b64encode(rng.randbytes(n)).decode()[:n].translate(_B64_TO_B58)


def _hex(rng: random.Random, n: int) -> str:
    return f"{rng.getrandbits(4 * n):0{n}x}"


# --------------------------------------------------------------------------------------------
# Session planning
# --------------------------------------------------------------------------------------------


@dataclass(slots=True)
class _Plan:
    size: int  # prompts + assistant messages, sidechains included
    project: int
    start_ms: int = 0
    frac: float = 0.0  # position in the timeline, picks the version
    subagents: int = 0  # files under <session>/subagents/
    flat_agent: bool = False  # legacy agent-<8hex>.jsonl in the project folder
    broken: bool = False
    seed: str = ""  # seeds this session's own random stream
    leaf: str = ""  # uuid of the session's last assistant line
    prev_leaf: str | None = None  # leaf of the project's previous session, for `summary` lines
    showcase: bool = False  # forces every rare record type, so small trees have them all


def _plan_sessions(
    rng: random.Random, messages: int, n_projects: int, broken: bool, seed: int
) -> list[_Plan]:
    sizes = _session_sizes(rng, messages, n_projects)
    n = len(sizes)
    # every project gets a session first, then busier projects get more (Zipf-like)
    projects = [i % n_projects for i in range(min(n, n_projects))]
    weights = [1.0 / (p + 1) for p in range(n_projects)]
    projects += rng.choices(range(n_projects), weights=weights, k=n - len(projects))
    rng.shuffle(projects)
    starts = sorted(rng.randrange(_T_SPAN) for _ in range(n))
    if starts:
        starts[0] = 0  # the tree always reaches back to the 2.0.x era (flat agent files)
    plans = [
        _Plan(size=s, project=p, start_ms=_T_END - _T_SPAN + t, frac=t / _T_SPAN)
        for s, p, t in zip(sizes, projects, starts, strict=True)
    ]
    for p in plans:
        if p.size < 5:
            continue
        if p.frac < _OLD_SHARE:
            p.flat_agent = rng.random() < 0.2
        elif rng.random() < 0.3:
            p.subagents = _pick(rng, (1, 1, 1, 2, 3))
    # make sure small trees still show both agent layouts
    eligible = [p for p in plans if p.size >= 5]
    old = [p for p in eligible if p.frac < _OLD_SHARE]
    new = [p for p in eligible if p.frac >= _OLD_SHARE]
    if old and not any(p.flat_agent for p in old):
        old[0].flat_agent = True
    if new and not any(p.subagents for p in new):
        new[-1].subagents = 1
    if plans:
        max(new or plans, key=lambda p: p.size).showcase = True
    last_leaf: dict[int, str] = {}
    for i, p in enumerate(plans):
        # fixed up front so that sessions can be written independently
        p.seed = f"{seed}/{i}"
        p.leaf = _uuid(random.Random(f"{seed}/{i}/leaf"))
        p.prev_leaf = last_leaf.get(p.project)
        last_leaf[p.project] = p.leaf
    if broken and plans:
        for i, p in enumerate(plans):
            p.broken = i == 0 or rng.random() < 0.03
    return plans


def _session_sizes(rng: random.Random, messages: int, n_projects: int) -> list[int]:
    if messages <= 0:
        return []
    if messages < 5:
        return [messages]
    cap = max(5, min(400, messages // max(1, n_projects)))
    sizes: list[int] = []
    total = 0
    while total < messages:
        s = 5 + int((cap - 5) * rng.random() ** 2.2)  # many short sessions, a few long ones
        sizes.append(s)
        total += s
    sizes[-1] -= total - messages
    if sizes[-1] < 5 and len(sizes) > 1:
        rest = sizes.pop()
        fits = [i for i, s in enumerate(sizes) if s + rest <= 400]
        sizes[_pick(rng, fits) if fits else -1] += rest
    return sizes


# --------------------------------------------------------------------------------------------
# Output
# --------------------------------------------------------------------------------------------

_dumps = json.JSONEncoder(ensure_ascii=False, separators=(",", ":")).encode


class _Out:
    """A .jsonl file being written; counts its lines."""

    __slots__ = ("fh", "lines")

    def __init__(self, path: Path, mode: str = "wb") -> None:
        self.fh = open(path, mode, buffering=1 << 20)  # noqa: SIM115 - closed in __exit__
        self.lines = 0

    def rec(self, obj: dict[str, Any]) -> None:
        self.fh.write(_dumps(obj).encode())
        self.fh.write(b"\n")
        self.lines += 1

    def raw(self, data: bytes) -> None:
        self.fh.write(data + b"\n")
        self.lines += 1

    def __enter__(self) -> _Out:
        return self

    def __exit__(self, *exc: object) -> None:
        self.fh.close()


def _broken_line(rng: random.Random, kind: int) -> bytes:
    if kind == 0:  # a write cut short by a crash
        rec = {
            "parentUuid": _uuid(rng),
            "isSidechain": False,
            "type": "progress",
            "data": {"type": "hook_progress", "hookEvent": "PostToolUse"},
            "uuid": _uuid(rng),
            "timestamp": _iso(_T_END),
        }
        text = _dumps(rec)
        return text[: _ri(rng, 10, len(text) - 2)].encode()
    if kind == 1:  # valid JSON, not an object
        return _pick(rng, (b"[1,2]", b"null", b'"orphan string"', b"42", b"[]"))
    return b'{"type":"user","message":\xff\xfe\xc3\x28 garbage \x80\x81'  # invalid UTF-8


# --------------------------------------------------------------------------------------------
# Streams: one per transcript file (main session or sidechain)
# --------------------------------------------------------------------------------------------

SpawnFn = Callable[["_Stream", int, str, str], tuple[str, str, str, int]]


@dataclass(slots=True)
class _Stream:
    out: _Out
    rng: random.Random
    clock: _Clock
    stats: CorpusStats
    cwd: str
    session_id: str
    version: str
    branch: str
    model: str
    topics: tuple[str, ...]
    modern: bool
    agent_id: str | None = None
    slug: str | None = None
    parent: str | None = None
    prompt_id: str | None = None
    slots: dict[str, str] = field(default_factory=dict)
    last_prompt: str = ""
    leaf_uuid: str | None = None  # forced uuid for the next end_turn line


def _head(s: _Stream, parent: str | None) -> dict[str, Any]:
    d: dict[str, Any] = {
        "parentUuid": parent,
        "isSidechain": s.agent_id is not None,
        "userType": "external",
    }
    if s.modern:
        d["entrypoint"] = "cli"
    d["cwd"] = s.cwd
    d["sessionId"] = s.session_id
    d["version"] = s.version
    d["gitBranch"] = s.branch
    if s.agent_id is not None:
        d["agentId"] = s.agent_id
    if s.slug is not None:
        d["slug"] = s.slug
    return d


def _user_line(
    s: _Stream, content: Any, *, uuid: str | None = None, **extra: Any
) -> dict[str, Any]:
    """A type=user record chained onto ``s.parent`` (not yet written)."""
    d = _head(s, s.parent)
    if s.modern and s.prompt_id and not extra.get("isCompactSummary"):
        d["promptId"] = s.prompt_id
    d["type"] = "user"
    d["message"] = {"role": "user", "content": content}
    d.update(extra)
    d["uuid"] = uuid or _uuid(s.rng)
    d["timestamp"] = s.clock.tick(s.rng, 5, 400)
    return d


def _emit(s: _Stream, d: dict[str, Any]) -> None:
    s.out.rec(d)
    if "uuid" in d:
        s.parent = d["uuid"]


def _system(s: _Stream, subtype: str | None, **fields: Any) -> None:
    d = _head(s, s.parent)
    d["type"] = "system"
    if subtype is not None:
        d["subtype"] = subtype
    d.update(fields)
    d["timestamp"] = s.clock.tick(s.rng, 1, 50)
    d["uuid"] = _uuid(s.rng)
    _emit(s, d)


def _progress(s: _Stream, data: dict[str, Any], tool_use_id: str, parent_tool: str) -> None:
    d = _head(s, s.parent)
    d["type"] = "progress"
    d["data"] = data
    d["toolUseID"] = tool_use_id
    d["parentToolUseID"] = parent_tool
    d["uuid"] = _uuid(s.rng)
    d["timestamp"] = s.clock.tick(s.rng, 1, 30)
    _emit(s, d)


def _attachment(s: _Stream, att: dict[str, Any]) -> None:
    d = _head(s, s.parent)
    d["attachment"] = att
    d["type"] = "attachment"
    d["uuid"] = _uuid(s.rng)
    d["timestamp"] = s.clock.tick(s.rng, 0, 5)
    _emit(s, d)


def _hook(s: _Stream, event: str, name: str, tool_use_id: str) -> None:
    """Hook activity: progress lines in 2.1.x, attachments in 2.1.87+, plain system in 2.0.x."""
    command = "${CLAUDE_PLUGIN_ROOT}/hooks/" + _pick(s.rng, ("format.sh", "notify.sh", "lint.sh"))
    if s.modern:
        _attachment(
            s,
            {
                "type": "hook_success",
                "hookName": name,
                "toolUseID": tool_use_id,
                "hookEvent": event,
                "content": "",
                "stdout": "",
                "stderr": "",
                "exitCode": 0,
                "command": command,
                "durationMs": _ri(s.rng, 20, 1500),
            },
        )
    elif _is_old(s.version):
        _system(
            s,
            None,
            content=f"Running \x1b[1m{name}\x1b[22m...",
            isMeta=False,
            toolUseID=tool_use_id,
            level="info",
        )
    else:
        data = {"type": "hook_progress", "hookEvent": event, "hookName": name, "command": command}
        _progress(s, data, tool_use_id, tool_use_id)


# --------------------------------------------------------------------------------------------
# Text
# --------------------------------------------------------------------------------------------


def _pick_slots(s: _Stream) -> dict[str, str]:
    rng = s.rng
    key = _pick(rng, s.topics) if rng.random() < 0.85 else _pick(rng, _GENERIC)
    t = _TOPICS[key]
    t2 = _TOPICS[_pick(rng, s.topics)]
    files = t.files + t2.files
    return {
        "topic": key,
        "noun": _pick(rng, t.nouns),
        "noun2": _pick(rng, t2.nouns),
        "name": _pick(rng, t.names),
        "name2": _pick(rng, t2.names),
        "file": _pick(rng, t.files),
        "file2": _pick(rng, files),
        "error": _pick(rng, t.errors),
        "cmd": _pick(rng, t.cmds),
        "lang": _pick(rng, t.langs),
        "fact": _pick(rng, t.facts),
    }


_SHORT_PROMPTS = (
    "yes",
    "go ahead",
    "continue",
    "thanks, looks good",
    "commit this",
    "run the tests",
    "ok",
    "do it",
    "hmm, still getting {error}",
    "now do the same for {file2}",
    "what about {noun2}?",
    "revert that last change",
)
_PROMPTS = (
    "why does `{name}` fail with {error}?",
    "{error} again when I run `{cmd}`. can you look?",
    "Can you refactor {file} so that `{name}` handles the {noun} case properly?",
    "add tests for {name} in {file}",
    "let's work on the {noun}. I want `{name}` to be configurable and the {noun2} should not "
    "block requests",
    "explain how {name} interacts with the {noun2}",
    "I'm seeing {error} in production (only under load). My guess is the {noun}. Investigate "
    "and propose a fix, don't change anything yet.",
    "The {noun} in {file} is a mess. Clean it up, keep the public API of `{name}` the same.",
    "We need to support {noun2} in `{name2}`. Look at how {file2} does it and follow the same "
    "pattern.",
    "is there a simpler way to do the {noun}? {name} feels overcomplicated",
    "Check why CI is red: `{cmd}` reports {error}",
    "please update the docs for {noun} after the change to `{name}`",
)
_LONG_PROMPT_INTROS = (
    "The {noun} is broken since yesterday's deploy. Here's the log:",
    "I tried `{cmd}` and got this:",
    "Please review this part of {file}:",
    "Here is what I have so far for `{name}`:",
)
_LONG_PROMPT_ASKS = (
    "What's going on? I suspect the {noun2} but I'm not sure.",
    "Can you find the root cause and fix it? Add a regression test too.",
    "Requirements:\n- keep `{name}` backwards compatible\n- no new dependencies\n"
    "- the {noun2} must still work\n- document the behaviour in {file2}",
    "Is this the right approach for the {noun}, or should we move it into `{name2}`?",
)
_INTROS = (
    "I'll start by reading `{file}` to understand how `{name}` works.",
    "Let me check where `{name}` is used.",
    "Let me run `{cmd}` to reproduce the failure.",
    "Now I'll update `{name}` to handle the {noun}.",
    "The tests pass. Let me also check the {noun2}.",
    "Let me look at {file2} as well, since it also touches the {noun2}.",
    "I need to see the current {noun} configuration first.",
    "Found it. Let me fix the {noun} handling in `{name}`.",
)
_THOUGHTS = (
    "The user is asking about the {noun}. The error {error} suggests `{name}` runs before the "
    "{noun2} is ready.",
    "Let me look at {file} first, then check {file2} for the other call site.",
    "I should reproduce this with `{cmd}` before changing anything.",
    "Maybe the problem is not in `{name}` at all but in how `{name2}` is wired up.",
    "{fact}",
    "If I change the signature of `{name}` I also have to update the tests in {file2}.",
    "The simplest fix is a guard in `{name}`; a proper fix would restructure the {noun}.",
)
_OPENERS = (
    "Done. The {noun} now works as expected.",
    "I found the problem.",
    "Here's what was going on with the {noun}.",
    "Fixed - `{cmd}` passes now.",
    "Short answer: it's the {noun2}, not `{name}`.",
    "I've made the change to `{name}` in `{file}`.",
    "The {error} comes from `{name}`.",
)
_EXPLAIN = (
    "The root cause is that `{name}` reads the {noun} before it has been initialised, so under "
    "concurrent requests it sees a stale value.",
    "`{name}` was catching the exception too broadly, which hid the real error ({error}).",
    "I moved the {noun} logic into `{file}` so it can be tested in isolation.",
    "This also fixes the {noun2} because both code paths now go through `{name2}`.",
    "The {noun} was configured with a timeout shorter than the upstream latency, which explains "
    "the {error}.",
    "Note that `{name}` is now idempotent, so retries are safe.",
    "I added a regression test that reproduces {error} without the fix.",
    "There is a second issue in `{file2}`: the {noun2} is never cleaned up.",
    "Performance-wise, this removes one round-trip per request.",
    "If you prefer, we could keep `{name}` as is and add a guard in `{name2}` instead.",
    "{fact}",
    "{fact}",
    "I didn't touch {file2}; it only reads the {noun} and keeps working unchanged.",
    "The behaviour of `{name2}` is unchanged for existing callers.",
)
_BULLETS = (
    "`{file}`: `{name}` now validates the {noun} up front",
    "`{file2}`: removed the duplicated {noun2} handling",
    "added tests covering {error}",
    "renamed `{name2}` for clarity and updated the call sites",
    "documented the {noun} behaviour in the README",
    "bumped the timeout for the {noun2}",
)
_CLOSERS = (
    "Run `{cmd}` to verify.",
    "Want me to commit this?",
    "Let me know if you want the {noun2} handled the same way.",
    "I haven't pushed anything yet.",
)


def _fill(rng: random.Random, pool: tuple[str, ...], slots: dict[str, str]) -> str:
    return _pick(rng, pool).format(**slots)


def _sentences(rng: random.Random, pool: tuple[str, ...], slots: dict[str, str], n: int) -> str:
    return " ".join(t.format(**slots) for t in rng.sample(pool, n))


def _prompt_text(s: _Stream) -> str:
    rng, sl = s.rng, s.slots
    r = rng.random()
    if r < 0.2:
        return _fill(rng, _SHORT_PROMPTS, sl)
    if r < 0.8:
        return _fill(rng, _PROMPTS, sl)
    parts = [_fill(rng, _LONG_PROMPT_INTROS, sl)]
    if rng.random() < 0.5:
        parts.append(f"```\n{_output(rng, sl, s.cwd)}\n```")
    else:
        parts.append(f"```{sl['lang']}\n{_code(rng, sl)}\n```")
    parts.append(_fill(rng, _LONG_PROMPT_ASKS, sl))
    return "\n\n".join(parts)


def _thinking_text(s: _Stream) -> str:
    rng = s.rng
    if rng.random() < 0.15:
        return ""  # newer models redact thinking: empty text, signature only
    return _sentences(rng, _THOUGHTS, s.slots, _ri(rng, 1, 5))


def _final_text(s: _Stream) -> str:
    rng, sl = s.rng, s.slots
    long = rng.random() < 0.2
    parts = [_fill(rng, _OPENERS, sl)]
    for _ in range(_ri(rng, 1, 4 if long else 2)):
        parts.append(_sentences(rng, _EXPLAIN, sl, _ri(rng, 1, 4)))
    if rng.random() < 0.45:
        k = _ri(rng, 2, 4)
        parts.append(
            "Changes:\n" + "\n".join("- " + b.format(**sl) for b in rng.sample(_BULLETS, k))
        )
    if long or rng.random() < 0.3:
        parts.append(f"```{sl['lang']}\n{_code(rng, sl)}\n```")
    if rng.random() < 0.5:
        parts.append(_fill(rng, _CLOSERS, sl))
    return "\n\n".join(parts)


@functools.cache
def _snake(name: str) -> str:
    return re.sub(r"(?<=[a-z0-9])(?=[A-Z])", "_", name).lower()


@functools.cache
def _camel(name: str) -> str:
    head, *rest = _snake(name).split("_")
    return head + "".join(p.title() for p in rest)


def _code(rng: random.Random, sl: dict[str, str]) -> str:
    lang, a, b = sl["lang"], _snake(sl["name"]), _snake(sl["name2"])
    noun = sl["noun"]
    if lang == "python":
        return (
            f"def {a}(self, key: str, *, timeout: float = {_ri(rng, 1, 30)}.0) -> dict:\n"
            f'    """Handle the {noun} for ``key``."""\n'
            f"    result = self._{b}(key, timeout=timeout)\n"
            "    if result is None:\n"
            f'        raise LookupError(f"{noun}: {{key}} not found")\n'
            f'    logger.debug("{a} ok", extra={{"key": key}})\n'
            "    return result"
        )
    if lang == "ts":
        ca, cb = _camel(a), _camel(b)
        return (
            f"export function {ca}(input: string, opts: Options = {{}}): Result | undefined {{\n"
            f"  // {noun}\n"
            f"  const value = {cb}(input, opts.timeoutMs ?? {_ri(rng, 100, 5000)});\n"
            "  if (!value) return undefined;\n"
            "  return { ok: true, value };\n"
            "}"
        )
    if lang == "rust":
        return (
            f"pub fn {a}(&mut self, key: &str) -> Result<usize, Error> {{\n"
            f"    // {noun}\n"
            f"    let n = self.{b}(key)?;\n"
            "    self.items.push(n);\n"
            "    Ok(self.items.len())\n"
            "}"
        )
    if lang == "go":
        return (
            f"func (s *Server) {_camel(a)[:1].upper()}{_camel(a)[1:]}"
            "(ctx context.Context, key string) error {\n"
            f"\t// {noun}\n"
            f"\tctx, cancel := context.WithTimeout(ctx, {_ri(rng, 1, 30)}*time.Second)\n"
            "\tdefer cancel()\n"
            f"\treturn s.{_camel(b)}(ctx, key)\n"
            "}"
        )
    if lang == "sql":
        return (
            f"-- {noun}\n"
            f"CREATE INDEX CONCURRENTLY IF NOT EXISTS ix_{a}_created_at\n"
            f"    ON {a} (created_at DESC) WHERE deleted_at IS NULL;"
        )
    if lang == "yaml":
        return (
            f"# {noun}\n{a}:\n  enabled: true\n  timeout_seconds: {_ri(rng, 5, 120)}\n"
            f"  {b}:\n    - name: {sl['file']}\n      retries: {_ri(rng, 1, 5)}"
        )
    if lang == "docker":
        return (
            "FROM python:3.12-slim AS builder\nWORKDIR /app\nCOPY requirements.txt .\n"
            "RUN pip install --no-cache-dir -r requirements.txt\n"
            "COPY . .\n"
            f"HEALTHCHECK CMD curl -fsS localhost:{_ri(rng, 3000, 9000)}/health || exit 1"
        )
    return f"#!/usr/bin/env bash\nset -euo pipefail\n# {noun}\n{sl['cmd']}"


def _output(rng: random.Random, sl: dict[str, str], cwd: str) -> str:
    """Plausible command output for a Bash tool result or a pasted log."""
    cmd, err = sl["cmd"], sl["error"]
    if "pytest" in cmd:
        n = _ri(rng, 5, 400)
        test = "test_" + _snake(sl["name"])
        return (
            "============================= test session starts ==============================\n"
            f"platform linux -- Python 3.12.3, pytest-8.3.2, pluggy-1.5.0\nrootdir: {cwd}\n"
            f"collected {n} items\n\n{sl['file']} " + "." * _ri(rng, 3, 40) + "F\n\n"
            "=================================== FAILURES ===================================\n"
            f"____ {test} ____\n\n    def {test}():\n>       assert {_snake(sl['name2'])}() == 3\n"
            f"E       {err}\n\n"
            "=========================== short test summary info ============================\n"
            f"FAILED {sl['file']}::{test} - {err}\n"
            f"========================= 1 failed, {n - 1} passed in "
            f"{rng.uniform(0.5, 90):.2f}s =========================="
        )
    if cmd.startswith("cargo"):
        return (
            f"   Compiling rust_indexer v0.3.1 ({cwd})\n{err}\n"
            f"  --> {sl['file']}:{_ri(rng, 10, 400)}:{_ri(rng, 5, 40)}\n   |\n"
            f"   = help: for more information about this error, try `rustc --explain E0502`\n"
            "error: could not compile `rust_indexer` (lib) due to 1 previous error"
        )
    if cmd.startswith("git"):
        return (
            f"On branch main\nChanges not staged for commit:\n\tmodified:   {sl['file']}\n"
            f"\tmodified:   {sl['file2']}\n\nno changes added to commit"
        )
    if cmd.startswith("kubectl get"):
        rows = "\n".join(
            f"api-{_hex(rng, 9)}-{_tok(rng, 5).lower()}   {_pick(rng, ('1/1', '0/1'))}     "
            f"{_pick(rng, ('Running', 'CrashLoopBackOff', 'Pending'))}   {_ri(rng, 0, 9)}"
            f"          {_ri(rng, 1, 59)}m"
            for _ in range(_ri(rng, 2, 6))
        )
        return "NAME                       READY   STATUS    RESTARTS   AGE\n" + rows
    lines = []
    for i in range(_ri(rng, 2, 25)):
        level = _pick(rng, ("INFO", "INFO", "DEBUG", "WARNING", "ERROR"))
        msg = err if level == "ERROR" else f"{_snake(sl['name'])}: {sl['noun']} step {i}"
        lines.append(
            f"2026-01-{_ri(rng, 10, 28)}T12:{i % 60:02d}:{_ri(rng, 0, 59):02d}Z "
            f"{level:<7} [{_hex(rng, 8)}] {msg}"
        )
    return "\n".join(lines)


def _numbered(text: str, start: int = 1) -> str:
    return "\n".join(f"{i:>6}\u2192{line}" for i, line in enumerate(text.split("\n"), start))


# --------------------------------------------------------------------------------------------
# Tools: each returns (input, result text, toolUseResult, is_error)
# --------------------------------------------------------------------------------------------

ToolCall = tuple[dict[str, Any], str, Any, bool]


def _tool_bash(s: _Stream) -> ToolCall:
    rng, sl = s.rng, s.slots
    cmd = sl["cmd"] if rng.random() < 0.8 else _pick(rng, ("git status", "ls -la src", "make lint"))
    out = _output(rng, {**sl, "cmd": cmd}, s.cwd)
    inp: dict[str, Any] = {"command": cmd, "description": f"Run {cmd.split()[0]} for {sl['noun']}"}
    if rng.random() < 0.05:
        inp["timeout"] = 600000
    if rng.random() < 0.04:
        msg = f"Exit code 1\n{out}"
        return inp, msg, f"Error: {msg}", True
    tur = {
        "stdout": out,
        "stderr": "",
        "interrupted": False,
        "isImage": False,
        "noOutputExpected": False,
    }
    return inp, out, tur, False


def _tool_read(s: _Stream) -> ToolCall:
    rng, sl = s.rng, s.slots
    path = f"{s.cwd}/{sl['file']}"
    chunks = [_code(rng, {**sl, "name": _pick(rng, (sl["name"], sl["name2"]))})]
    for _ in range(_ri(rng, 0, 6)):
        chunks.append(_code(rng, {**sl, "name2": sl["name"], "name": sl["name2"]}))
    content = "\n\n".join(chunks)
    n = content.count("\n") + 1
    tur = {
        "type": "text",
        "file": {
            "filePath": path,
            "content": content,
            "numLines": n,
            "startLine": 1,
            "totalLines": n + _ri(rng, 0, 300),
        },
    }
    inp: dict[str, Any] = {"file_path": path}
    if rng.random() < 0.15:
        inp["limit"] = 200
    return inp, _numbered(content), tur, False


def _tool_edit(s: _Stream) -> ToolCall:
    rng, sl = s.rng, s.slots
    path = f"{s.cwd}/{sl['file']}"
    old = _code(rng, sl)
    new = old.replace(_snake(sl["name2"]), _snake(sl["name2"]) + "_checked", 1)
    line = _ri(rng, 10, 300)
    inp = {"file_path": path, "old_string": old, "new_string": new, "replace_all": False}
    text = (
        f"The file {path} has been updated. Here's the result of running `cat -n` on a snippet "
        f"of the edited file:\n{_numbered(new, line)}"
    )
    tur = {
        "filePath": path,
        "oldString": old,
        "newString": new,
        "originalFile": old,
        "structuredPatch": [
            {
                "oldStart": line,
                "oldLines": old.count("\n") + 1,
                "newStart": line,
                "newLines": new.count("\n") + 1,
                "lines": ["-" + x for x in old.split("\n")[:3]]
                + ["+" + x for x in new.split("\n")[:3]],
            }
        ],
        "userModified": False,
        "replaceAll": False,
    }
    if rng.random() < 0.03:
        msg = "<tool_use_error>String to replace not found in file.</tool_use_error>"
        return inp, msg, f"Error: {msg}", True
    return inp, text, tur, False


def _tool_grep(s: _Stream) -> ToolCall:
    rng, sl = s.rng, s.slots
    t = _TOPICS[sl["topic"]]
    files = [f"{s.cwd}/{f}" for f in rng.sample(t.files, _ri(rng, 0, len(t.files)))]
    inp = {
        "pattern": _pick(rng, (sl["name"], f"{sl['name']}|{sl['name2']}", sl["name2"])),
        "output_mode": "files_with_matches",
    }
    if rng.random() < 0.4:
        inp["path"] = s.cwd
    text = f"Found {len(files)} file{'s' if len(files) != 1 else ''}\n" + "\n".join(files)
    if not files:
        text = "No files found"
    tur = {"mode": "files_with_matches", "filenames": files, "numFiles": len(files)}
    return inp, text, tur, False


def _tool_glob(s: _Stream) -> ToolCall:
    rng, sl = s.rng, s.slots
    ext = sl["file"].rsplit(".", 1)[-1] if "." in sl["file"] else "py"
    files = [f"{s.cwd}/{f}" for f in _TOPICS[sl["topic"]].files if f.endswith(ext)]
    tur = {
        "filenames": files,
        "durationMs": _ri(rng, 3, 400),
        "numFiles": len(files),
        "truncated": False,
    }
    return {"pattern": f"**/*.{ext}", "path": s.cwd}, "\n".join(files), tur, False


def _tool_write(s: _Stream) -> ToolCall:
    rng, sl = s.rng, s.slots
    path = f"{s.cwd}/{sl['file2']}"
    content = _code(rng, sl) + "\n"
    tur = {
        "type": "create",
        "filePath": path,
        "content": content,
        "structuredPatch": [],
        "originalFile": None,
    }
    return (
        {"file_path": path, "content": content},
        f"File created successfully at: {path}",
        tur,
        False,
    )


def _tool_todo(s: _Stream) -> ToolCall:
    rng, sl = s.rng, s.slots
    todos = [
        {
            "content": b.format(**sl),
            "status": _pick(rng, ("pending", "in_progress", "completed")),
            "activeForm": "Working on " + sl["noun"],
        }
        for b in rng.sample(_BULLETS, _ri(rng, 2, 5))
    ]
    text = (
        "Todos have been modified successfully. Ensure that you continue to use the todo list to "
        "track your progress. Please proceed with the current tasks if applicable"
    )
    return {"todos": todos}, text, {"oldTodos": [], "newTodos": todos}, False


_TOOLS: tuple[tuple[str, Callable[[_Stream], ToolCall], int], ...] = (
    ("Bash", _tool_bash, 30),
    ("Read", _tool_read, 30),
    ("Edit", _tool_edit, 18),
    ("Grep", _tool_grep, 12),
    ("Glob", _tool_glob, 4),
    ("Write", _tool_write, 3),
    ("TodoWrite", _tool_todo, 3),
)
_TOOL_WEIGHTS = [w for _, _, w in _TOOLS]


def _signature(rng: random.Random) -> str:
    return base64.b64encode(rng.randbytes(_ri(rng, 90, 300))).decode()


# --------------------------------------------------------------------------------------------
# Turns and exchanges
# --------------------------------------------------------------------------------------------


def _turn_length(rng: random.Random) -> int:
    """Assistant API messages answering one prompt: mostly a few, sometimes long tool loops."""
    r = rng.random()
    if r < 0.35:
        return _ri(rng, 1, 2)
    if r < 0.85:
        return _ri(rng, 3, 8)
    return _ri(rng, 9, 30)


def _assistant_lines(s: _Stream, blocks: list[dict[str, Any]], final: str) -> list[str]:
    """Write one API message as one line per content block; returns the line uuids."""
    rng = s.rng
    msg_id = "msg_01" + _tok(rng, 22)
    req_id = "req_011C" + _tok(rng, 20)
    cache_read = _ri(rng, 0, 150_000)
    usage = {
        "input_tokens": _ri(rng, 1, 12),
        "cache_creation_input_tokens": _ri(rng, 0, 30_000),
        "cache_read_input_tokens": cache_read,
        "cache_creation": {"ephemeral_5m_input_tokens": 0, "ephemeral_1h_input_tokens": 0},
        "output_tokens": _ri(rng, 1, 4000),
        "service_tier": "standard",
    }
    uuids = []
    s.clock.tick(rng, 800, 25_000)  # model latency before the first block
    for i, block in enumerate(blocks):
        d = _head(s, s.parent)
        d["message"] = {
            "model": s.model,
            "id": msg_id,
            "type": "message",
            "role": "assistant",
            "content": [block],
            "stop_reason": final if i == len(blocks) - 1 else None,
            "stop_sequence": None,
            "usage": usage,
        }
        d["requestId"] = req_id
        d["type"] = "assistant"
        d["uuid"] = _uuid(rng)
        if s.leaf_uuid and final == "end_turn" and i == len(blocks) - 1:
            d["uuid"], s.leaf_uuid = s.leaf_uuid, None
        d["timestamp"] = s.clock.tick(rng, 50, 2500)
        _emit(s, d)
        uuids.append(d["uuid"])
    s.stats.assistant += 1
    return uuids


def _tool_result(
    s: _Stream, use_uuid: str, tool_id: str, text: Any, tur: Any, is_error: bool
) -> None:
    block: dict[str, Any] = {"tool_use_id": tool_id, "type": "tool_result", "content": text}
    if is_error or s.rng.random() < 0.5:
        block["is_error"] = is_error
    s.parent = use_uuid  # results hang off their own tool_use line
    d = _user_line(s, [block], toolUseResult=tur, sourceToolAssistantUUID=use_uuid)
    d["timestamp"] = s.clock.tick(s.rng, 20, 20_000)
    _emit(s, d)
    s.stats.tool_results += 1


def _turn(s: _Stream, k: int, spawn_budget: int, spawn: SpawnFn | None) -> str:
    """``k`` assistant messages after a prompt; the first may start a subagent."""
    rng = s.rng
    final_text = ""
    for i in range(k):
        last = i == k - 1
        if i and rng.random() < 0.08:
            s.slots = _pick_slots(s)  # long tool loops drift to a neighbouring subject
        blocks: list[dict[str, Any]] = []
        if rng.random() < (0.35 if i == 0 else 0.15):
            blocks.append(
                {"type": "thinking", "thinking": _thinking_text(s), "signature": _signature(rng)}
            )
        if last:
            final_text = _final_text(s)
            blocks.append({"type": "text", "text": final_text})
            _assistant_lines(s, blocks, "end_turn")
            continue
        if rng.random() < 0.55:
            blocks.append({"type": "text", "text": _fill(rng, _INTROS, s.slots)})
        calls: list[tuple[str, str, ToolCall | None]] = []  # (tool id, name, call)
        agent_input: dict[str, Any] = {}
        if i == 0 and spawn_budget and spawn is not None:
            agent_input = _agent_input(s)
            calls.append(("toolu_01" + _tok(rng, 22), "Task" if not s.modern else "Agent", None))
        n_tools = 1 if rng.random() < 0.8 else _ri(rng, 2, 3)
        while len(calls) < n_tools:
            name, fn, _ = rng.choices(_TOOLS, weights=_TOOL_WEIGHTS)[0]
            calls.append(("toolu_01" + _tok(rng, 22), name, fn(s)))
        for tool_id, name, call in calls:
            inp = agent_input if call is None else call[0]
            blocks.append(
                {
                    "type": "tool_use",
                    "id": tool_id,
                    "name": name,
                    "input": inp,
                    "caller": {"type": "direct"},
                }
            )
        line_uuids = _assistant_lines(s, blocks, "tool_use")
        for (tool_id, name, call), use_uuid in zip(calls, line_uuids[-len(calls) :], strict=True):
            if call is None:
                assert spawn is not None
                _agent_call(s, spawn, spawn_budget, agent_input, tool_id, use_uuid)
                continue
            if rng.random() < 0.3:
                _hook(s, "PostToolUse", f"PostToolUse:{name}", tool_id)
            if name == "Bash" and rng.random() < 0.15 and not _is_old(s.version):
                data = {
                    "type": "bash_progress",
                    "output": call[1][-300:],
                    "fullOutput": call[1][:1000],
                    "elapsedTimeSeconds": _ri(rng, 2, 60),
                    "totalLines": call[1].count("\n") + 1,
                    "timeoutMs": 120000,
                }
                _progress(s, data, "bash-progress-0", tool_id)
            _tool_result(s, use_uuid, tool_id, call[1], call[2], call[3])
    return final_text


def _agent_input(s: _Stream) -> dict[str, Any]:
    sl = s.slots
    prompt = (
        f"Investigate the {sl['noun']} in this repository. Find where `{sl['name']}` is defined "
        f"and every caller, read {sl['file']} and {sl['file2']}, and report how the "
        f"{sl['noun2']} is handled. Do not modify any files."
    )
    return {
        "description": f"Explore {sl['noun']}",
        "subagent_type": _pick(s.rng, ("Explore", "general-purpose")),
        "prompt": prompt,
    }


def _agent_call(
    s: _Stream,
    spawn: SpawnFn,
    budget: int,
    agent_input: dict[str, Any],
    tool_id: str,
    use_uuid: str,
) -> None:
    rng = s.rng
    agent_id, prompt_uuid, report, tools = spawn(
        s, budget, agent_input["prompt"], agent_input["description"]
    )
    if not _is_old(s.version):
        for _ in range(_ri(rng, 1, 3)):
            data = {
                "message": {
                    "type": "user",
                    "message": {
                        "role": "user",
                        "content": [{"type": "text", "text": agent_input["prompt"]}],
                    },
                    "uuid": prompt_uuid,
                    "timestamp": _iso(s.clock.ms),
                },
                "normalizedMessages": [],
                "type": "agent_progress",
                "prompt": agent_input["prompt"],
                "agentId": agent_id,
            }
            _progress(s, data, "agent_msg_01" + _tok(rng, 22), tool_id)
    content = [{"type": "text", "text": report}]
    if not _is_old(s.version):
        content.append(
            {
                "type": "text",
                "text": (
                    f"agentId: {agent_id} (use SendMessage with to: '{agent_id}' "
                    "to continue this agent)\n"
                    f"<usage>total_tokens: {_ri(rng, 5000, 90000)}\ntool_uses: {tools}\n"
                    f"duration_ms: {_ri(rng, 10_000, 600_000)}</usage>"
                ),
            }
        )
    tur = {
        "status": "completed",
        "prompt": agent_input["prompt"],
        "agentId": agent_id,
        "agentType": agent_input["subagent_type"],
        "content": [{"type": "text", "text": report}],
        "totalDurationMs": _ri(rng, 10_000, 600_000),
        "totalTokens": _ri(rng, 5000, 90000),
        "totalToolUseCount": tools,
    }
    _tool_result(s, use_uuid, tool_id, content, tur, False)


def _prompt_content(s: _Stream, text: str) -> Any:
    r = s.rng.random()
    if r < 0.8:
        return text
    blocks: list[dict[str, Any]] = []
    if r > 0.995:  # a pasted screenshot
        data = base64.b64encode(s.rng.randbytes(120)).decode()
        blocks.append(
            {"type": "image", "source": {"type": "base64", "media_type": "image/png", "data": data}}
        )
    blocks.append({"type": "text", "text": text})
    return blocks


def _exchange(
    s: _Stream, k: int, spawn_budget: int, spawn: SpawnFn | None, force: bool = False
) -> None:
    """One user prompt and ``k`` assistant messages, with the side records around them.

    ``force`` writes every optional side record (meta lines, queue operations, hooks...).
    """
    rng = s.rng
    s.slots = _pick_slots(s)
    s.prompt_id = _uuid(rng)
    s.clock.tick(rng, 20_000, 900_000)  # the user reads, thinks, types
    if force or rng.random() < 0.04:
        _local_command(s)
    text = _prompt_text(s)
    if (force or rng.random() < 0.03) and s.agent_id is None:
        _queue(s, "enqueue", text)
        _queue(s, "remove" if rng.random() < 0.3 else "dequeue", None)
    prompt_uuid = _uuid(rng)
    if s.agent_id is None:
        _snapshot(s, prompt_uuid)
    extra: dict[str, Any] = {"permissionMode": "default"} if s.modern else {}
    _emit(s, _user_line(s, _prompt_content(s, text), uuid=prompt_uuid, **extra))
    s.stats.prompts += 1
    s.last_prompt = text
    if force or rng.random() < 0.04:
        skill = (
            f"Base directory for this skill: /home/dev/.claude/skills/{s.slots['topic']}-helper\n\n"
            f"# {s.slots['noun'].title()} helper\n\nUse this skill when working on the "
            f"{s.slots['noun']}. Always run `{s.slots['cmd']}` after changes."
        )
        _emit(s, _user_line(s, [{"type": "text", "text": skill}], isMeta=True))
    if s.modern and (force or rng.random() < 0.08):
        _attachment(
            s,
            {
                "type": "hook_additional_context",
                "content": [f"branch {s.branch}: {s.slots['noun']}"],
                "hookName": "UserPromptSubmit",
                "toolUseID": "UserPromptSubmit",
                "hookEvent": "UserPromptSubmit",
            },
        )
    _turn(s, k, spawn_budget, spawn)
    if s.agent_id is None:
        _after_turn(s, k, force)


def _after_turn(s: _Stream, k: int, force: bool) -> None:
    rng = s.rng
    if _is_old(s.version):
        return
    if force or rng.random() < 0.2:
        _system(
            s,
            "stop_hook_summary",
            hookCount=1,
            hookInfos=[
                {
                    "command": "${CLAUDE_PLUGIN_ROOT}/hooks/notify.sh idle",
                    "durationMs": _ri(rng, 20, 300),
                }
            ],
            hookErrors=[],
            preventedContinuation=False,
            stopReason="",
            hasOutput=True,
            level="suggestion",
            toolUseID=_uuid(rng),
        )
    if force or rng.random() < 0.3:
        _system(
            s,
            "turn_duration",
            durationMs=_ri(rng, 2_000, 900_000),
            messageCount=k * 2 + 1,
            isMeta=False,
        )
    if s.modern and (force or rng.random() < 0.02):
        _system(
            s,
            "away_summary",
            content=f"Worked on the {s.slots['noun']} in "
            f"{s.slots['file']}; {s.slots['cmd']} was failing with {s.slots['error']}.",
            isMeta=False,
        )


def _local_command(s: _Stream) -> None:
    rng = s.rng
    caveat = (
        "<local-command-caveat>Caveat: The messages below were generated by the user while "
        "running local commands. DO NOT respond to these messages or otherwise consider them in "
        "your response unless the user explicitly asks you to.</local-command-caveat>"
    )
    _emit(s, _user_line(s, caveat, isMeta=True))
    cmd, out = _pick(
        rng,
        (
            ("model", "Set model to opus"),
            ("context", "Context usage: 41%"),
            ("mcp", "No MCP servers configured"),
            ("cost", "Total cost: $1.27"),
        ),
    )
    _system(
        s,
        "local_command",
        content=f"<command-name>/{cmd}</command-name>\n            "
        f"<command-message>{cmd}</command-message>\n            <command-args></command-args>",
        level="info",
        isMeta=False,
    )
    _system(
        s,
        "local_command",
        content=f"<local-command-stdout>{out}</local-command-stdout>",
        level="info",
        isMeta=False,
    )


def _queue(s: _Stream, op: str, content: str | None) -> None:
    d: dict[str, Any] = {
        "type": "queue-operation",
        "operation": op,
        "timestamp": s.clock.tick(s.rng, 100, 5000),
        "sessionId": s.session_id,
    }
    if content is not None:
        d["content"] = content
    s.out.rec(d)


def _snapshot(s: _Stream, message_id: str) -> None:
    backups: dict[str, Any] = {}
    if s.rng.random() < 0.3:
        backups[s.slots["file"]] = {
            "backupFileName": f"{_hex(s.rng, 16)}@v2",
            "version": 2,
            "backupTime": _iso(s.clock.ms),
        }
    s.out.rec(
        {
            "type": "file-history-snapshot",
            "messageId": message_id,
            "snapshot": {
                "messageId": message_id,
                "trackedFileBackups": backups,
                "timestamp": _iso(s.clock.ms),
            },
            "isSnapshotUpdate": False,
        }
    )


def _compact(s: _Stream) -> None:
    """Auto-compaction: a boundary that restarts the chain, then the summary as a user line."""
    rng, sl = s.rng, s.slots
    boundary = _head(s, None)
    boundary["logicalParentUuid"] = s.parent
    boundary.update(
        {
            "type": "system",
            "subtype": "compact_boundary",
            "content": "Conversation compacted",
            "isMeta": False,
            "timestamp": s.clock.tick(rng, 30_000, 120_000),
            "uuid": _uuid(rng),
            "level": "info",
            "compactMetadata": {"trigger": "auto", "preTokens": _ri(rng, 150_000, 190_000)},
        }
    )
    _emit(s, boundary)
    summary = (
        "This session is being continued from a previous conversation that ran out of context. "
        "The summary below covers the earlier portion of the conversation.\n\nAnalysis:\n"
        f"The user asked to fix the {sl['noun']} in {sl['file']}. `{sl['cmd']}` failed with "
        f"{sl['error']}. {sl['fact']}\n\nSummary:\n1. Primary Request and Intent: make "
        f"`{sl['name']}` robust and cover the {sl['noun2']}.\n2. Files: {sl['file']}, "
        f"{sl['file2']}.\n3. Pending: run `{sl['cmd']}` again and commit."
    )
    _emit(s, _user_line(s, summary, isVisibleInTranscriptOnly=True, isCompactSummary=True))


# --------------------------------------------------------------------------------------------
# Sessions
# --------------------------------------------------------------------------------------------

_ADJ = ("radiant", "humble", "quiet", "brisk", "lucky", "golden", "sleepy", "clever", "gentle")
_NOUN = ("music", "umbrella", "falcon", "river", "lantern", "otter", "meadow", "comet", "harbor")


def _write_sessions(jobs: list[tuple[Path, _ProjectSpec, _Plan]]) -> CorpusStats:
    stats = CorpusStats()
    for root, spec, plan in jobs:
        _write_session(root, spec, plan, stats)
    return stats


def _write_session(root: Path, spec: _ProjectSpec, plan: _Plan, stats: CorpusStats) -> None:
    """Write one session file plus its agent files."""
    rng = random.Random(plan.seed)
    folder = root / encode_project_dir(spec.cwd)
    folder.mkdir(parents=True, exist_ok=True)
    if plan.frac < _OLD_SHARE:
        version = _OLD_VERSIONS[int(plan.frac / _OLD_SHARE * len(_OLD_VERSIONS))]
    else:
        pos = (plan.frac - _OLD_SHARE) / (1 - _OLD_SHARE)
        version = _NEW_VERSIONS[min(len(_NEW_VERSIONS) - 1, int(pos * len(_NEW_VERSIONS)))]
    session_id = _uuid(rng)
    branch = spec.branch
    if rng.random() < 0.4:
        kind = _pick(rng, ("feature", "fix", "chore"))
        branch = f"{kind}/{_pick(rng, spec.topics)}-{_ri(rng, 1, 999)}"
    path = folder / f"{session_id}.jsonl"
    with _Out(path) as out:
        s = _Stream(
            out=out,
            rng=rng,
            clock=_Clock(plan.start_ms),
            stats=stats,
            cwd=spec.cwd,
            session_id=session_id,
            version=version,
            branch=branch,
            model=_model_for(version, rng),
            topics=spec.topics,
            modern=_is_modern(version),
            slug=f"{_pick(rng, _ADJ)}-{_pick(rng, _ADJ)}-{_pick(rng, _NOUN)}"
            if not _is_old(version) and rng.random() < 0.5
            else None,
        )
        s.slots = _pick_slots(s)
        _session_body(s, plan, folder)
    stats.lines += out.lines
    stats.files += 1


def _session_body(s: _Stream, plan: _Plan, folder: Path) -> None:
    rng = s.rng
    prev_leaf = plan.prev_leaf
    if prev_leaf and rng.random() < 0.35:  # title of an earlier session, as 1.0/2.0 wrote them
        for _ in range(_ri(rng, 1, 2)):
            sl = _pick_slots(s)
            s.out.rec(
                {
                    "type": "summary",
                    "summary": f"Fix {sl['noun']} in {sl['file']}",
                    "leafUuid": prev_leaf,
                }
            )
    if not _is_old(s.version) and (plan.showcase or rng.random() < 0.4):
        s.out.rec(
            {
                "type": "permission-mode",
                "permissionMode": _pick(rng, ("default", "acceptEdits", "plan")),
                "sessionId": s.session_id,
            }
        )
    if not _is_old(s.version):
        _hook(s, "SessionStart", "SessionStart:startup", _uuid(rng))
    agents_left = plan.subagents + (1 if plan.flat_agent else 0)
    compact_at = plan.size // 2 if plan.size >= 40 and rng.random() < 0.4 else -1
    title_at = rng.randrange(plan.size) if rng.random() < 0.15 else -1
    if plan.showcase:  # both happen right before the second exchange
        compact_at = title_at = plan.size - 1
    remaining = plan.size
    first = first_exchange = True
    while remaining > 0:
        if plan.broken and (first or rng.random() < 0.1):
            # the first spot gets one of each kind, so even tiny trees have all three
            for kind in range(3) if first else (_ri(rng, 0, 2),):
                s.out.raw(_broken_line(rng, kind))
                s.stats.broken_lines += 1
        first = False
        if 0 <= remaining <= compact_at:
            _compact(s)
            compact_at = -1
        if 0 <= remaining <= title_at:
            s.out.rec(
                {
                    "type": "custom-title",
                    "customTitle": f"{s.slots['noun']} ({s.slots['topic']})",
                    "sessionId": s.session_id,
                }
            )
            title_at = -1
        remaining -= 1  # the prompt
        # a short first exchange leaves room for a second one in the showcase session
        cap = max(2, plan.size // 4) if plan.showcase and first_exchange else 40
        k = min(_turn_length(rng), remaining, cap)
        m = 0
        if agents_left and remaining >= 4:
            k = min(max(k, 2), remaining - 2)
            m = _ri(rng, 2, min(cap, remaining - k))
            agents_left -= 1
        if remaining - k - m == 1:
            k += 1  # never leave a single message: a lone prompt would need no answer
        remaining -= k + m
        if remaining == 0:
            s.leaf_uuid = plan.leaf  # the last assistant line takes the planned leaf uuid
        spawn = _spawner(folder, plan.flat_agent) if m else None
        _exchange(s, k, m, spawn, force=plan.showcase and first_exchange)
        first_exchange = False
    if not _is_old(s.version) and (plan.showcase or rng.random() < 0.5):
        s.out.rec(
            {"type": "last-prompt", "lastPrompt": s.last_prompt[:200], "sessionId": s.session_id}
        )


def _spawner(folder: Path, flat: bool) -> SpawnFn:
    """Subagent writer: ``<session>/subagents/agent-<id>.jsonl`` or legacy flat ``agent-<8hex>``."""

    def spawn(parent: _Stream, budget: int, prompt: str, desc: str) -> tuple[str, str, str, int]:
        rng = parent.rng
        if flat:
            agent_id = _hex(rng, 8)
            path = folder / f"agent-{agent_id}.jsonl"
        else:
            agent_id = "a" + _hex(rng, 16 if parent.modern else 6)
            sub = folder / parent.session_id / "subagents"
            sub.mkdir(parents=True, exist_ok=True)
            path = sub / f"agent-{agent_id}.jsonl"
            meta = {"agentType": _pick(rng, ("general-purpose", "Explore")), "description": desc}
            (sub / f"agent-{agent_id}.meta.json").write_text(_dumps(meta))
        with _Out(path) as out:
            s = _Stream(
                out=out,
                rng=rng,
                clock=parent.clock,  # shared: the parent waits while the agent works
                stats=parent.stats,
                cwd=parent.cwd,
                session_id=parent.session_id,
                version=parent.version,
                branch=parent.branch,
                model=_pick(rng, ("claude-haiku-4-5-20251001", "claude-sonnet-4-5-20250929")),
                topics=parent.topics,
                modern=parent.modern,
                agent_id=agent_id,
                slug=parent.slug,
                prompt_id=parent.prompt_id,
                slots=parent.slots,
            )
            prompt_uuid = _uuid(rng)
            _emit(s, _user_line(s, prompt, uuid=prompt_uuid))
            s.stats.prompts += 1
            tools_before = s.stats.tool_results
            report = _turn(s, budget - 1, 0, None)
            tools = s.stats.tool_results - tools_before
        parent.stats.lines += out.lines
        parent.stats.files += 1
        return agent_id, prompt_uuid, report, tools

    return spawn


# --------------------------------------------------------------------------------------------
# Reading back (for append_session_lines)
# --------------------------------------------------------------------------------------------


def _last_record(path: Path) -> dict[str, Any] | None:
    """The last parseable record with a uuid, read from the file's tail."""
    if not path.exists():
        return None
    with open(path, "rb") as fh:
        fh.seek(0, 2)
        size = fh.tell()
        fh.seek(max(0, size - (1 << 20)))
        tail = fh.read()
    for raw in reversed(tail.split(b"\n")):
        try:
            rec = json.loads(raw)
        except (ValueError, UnicodeDecodeError):
            continue
        if isinstance(rec, dict) and rec.get("uuid") and rec.get("timestamp"):
            return rec
    return None


# --------------------------------------------------------------------------------------------
# CLI
# --------------------------------------------------------------------------------------------


def main(argv: list[str] | None = None) -> int:
    ap = argparse.ArgumentParser(description="Generate a synthetic Claude Code transcript tree.")
    ap.add_argument("out_dir", type=Path)
    ap.add_argument("--messages", type=int, required=True, help="prompts + assistant messages")
    ap.add_argument("--seed", type=int, default=0)
    ap.add_argument("--projects", type=int, default=8)
    ap.add_argument("--no-broken-lines", action="store_true")
    args = ap.parse_args(argv)
    stats = generate(
        args.out_dir,
        messages=args.messages,
        seed=args.seed,
        projects=args.projects,
        broken_lines=not args.no_broken_lines,
    )
    print(json.dumps(asdict(stats)))
    return 0


if __name__ == "__main__":
    sys.exit(main())
