"""Codex CLI rollouts for the demo archive: a few sessions in the same made-up projects as
the Claude Code transcripts, so the demo shows one project worked on with both agents.

Written in the rollout format memtui's Codex reader reads (`sessions/YYYY/MM/DD/
rollout-<time>-<uuid>.jsonl`, one `{timestamp, type, payload}` a line): the session_meta,
the context Codex injects, then per turn the prompt, a reasoning summary, shell calls with
their output, the answer, and the event_msg lines that repeat them. Same input, same bytes.
"""

from __future__ import annotations

import json
from dataclasses import dataclass
from datetime import UTC, datetime, timedelta
from pathlib import Path
from typing import Any

CLI_VERSION = "0.46.0"
MODEL = "gpt-5-codex"


@dataclass(frozen=True, slots=True)
class Call:
    """One shell call: the script, what it printed, its exit code."""

    script: str
    output: str
    exit_code: int = 0


@dataclass(frozen=True, slots=True)
class Turn:
    prompt: str
    reasoning: str
    calls: tuple[Call, ...]
    answer: str


@dataclass(frozen=True, slots=True)
class Rollout:
    session_id: str
    cwd: str
    branch: str
    start: datetime
    turns: tuple[Turn, ...]


ROLLOUTS = (
    Rollout(
        "0196f3a1-5b2c-7d40-9e81-2a6c4f1d7b01",
        "/home/dev/work/payments-api",
        "main",
        datetime(2026, 4, 27, 14, 5, 12, tzinfo=UTC),
        (
            Turn(
                "refresh token rotation stopped working: a reused refresh token is accepted "
                "again and test_refresh_rotates_token fails. Find out why.",
                "**Looking at the refresh path**\n\nThe rotation should revoke the old refresh "
                "token when a new one is issued. Run the failing test first, then read "
                "refresh_access_token in app/auth/tokens.py.",
                (
                    Call(
                        "pytest tests/test_auth.py -k refresh -x -q",
                        "F\n___ test_refresh_rotates_token ___\n"
                        "    assert second.status_code == 401\n"
                        "E   assert 200 == 401\n"
                        "1 failed, 11 deselected in 0.41s\n",
                        1,
                    ),
                    Call(
                        "rg -n 'revoke|rotate' app/auth/tokens.py",
                        "42:def rotate_refresh_token(old: RefreshToken) -> RefreshToken:\n"
                        "51:    # revoke(old)  # TODO: back in after the migration\n",
                    ),
                ),
                "The rotation issues the new refresh token but no longer revokes the old one: "
                "`revoke(old)` in `rotate_refresh_token` (app/auth/tokens.py:51) was commented "
                "out during the token-table migration and never restored, so a refresh token "
                "can be replayed until it expires. Restore the call (the migration is done: "
                "`revoked_at` exists on `refresh_tokens`) and the test passes.",
            ),
            Turn(
                "restore it and run the auth tests",
                "**Restoring the revoke**\n\nUncomment the call, then run the whole auth suite "
                "to be sure nothing relied on reuse.",
                (
                    Call(
                        "sed -i 's|# revoke(old)  # TODO: back in after the migration|"
                        "revoke(old)|' app/auth/tokens.py && pytest tests/test_auth.py -q",
                        "............\n12 passed in 0.87s\n",
                    ),
                ),
                "Done: `revoke(old)` is back in `rotate_refresh_token` and the 12 auth tests "
                "pass, test_refresh_rotates_token among them. A replayed refresh token now "
                "gets a 401.",
            ),
        ),
    ),
    Rollout(
        "0196f8c4-2e7a-7b13-a5d2-8f0e3b6c9a02",
        "/home/dev/work/payments-api",
        "main",
        datetime(2026, 4, 29, 16, 40, 3, tzinfo=UTC),
        (
            Turn(
                "the webhook retries pile up in the queue after a deploy: why does the "
                "retry backoff not kick in?",
                "**Checking the retry settings**\n\nFind where the webhook worker reads its "
                "backoff and what the deploy sets it to.",
                (
                    Call(
                        "rg -n 'RETRY_BACKOFF' app/ deploy/",
                        "app/webhooks/worker.py:18:RETRY_BACKOFF = "
                        "int(os.environ.get('RETRY_BACKOFF_SECONDS', '0'))\n"
                        'deploy/values.yaml:31:  RETRY_BACKOFF: "30"\n',
                    ),
                ),
                "The worker reads `RETRY_BACKOFF_SECONDS` but the deploy sets `RETRY_BACKOFF`, "
                "so the backoff falls back to 0 and every failed webhook is retried at once. "
                "Rename the key in deploy/values.yaml to `RETRY_BACKOFF_SECONDS` (or read both "
                "in worker.py for one release).",
            ),
        ),
    ),
    Rollout(
        "0196e2d7-9a41-7c05-b3f8-6d1a0e4c2b03",
        "/home/dev/work/web-dashboard",
        "main",
        datetime(2026, 4, 22, 10, 12, 48, tzinfo=UTC),
        (
            Turn(
                "the revenue chart re-renders on every keystroke in the filter box; make the "
                "dashboard fast again",
                "**Profiling the chart**\n\nThe chart's data is probably rebuilt on every "
                "render: look for where RevenueChart gets its series.",
                (
                    Call(
                        "rg -n 'buildSeries' src/",
                        "src/pages/Dashboard.tsx:64:  const series = buildSeries(orders, "
                        "range);\n"
                        "src/charts/RevenueChart.tsx:12:export function buildSeries(orders: "
                        "Order[], range: Range): Point[] {\n",
                    ),
                    Call(
                        "npm test -- --run src/pages/Dashboard.test.tsx",
                        " ✓ src/pages/Dashboard.test.tsx (4 tests) 212ms\n"
                        " Test Files  1 passed (1)\n      Tests  4 passed (4)\n",
                    ),
                ),
                "`Dashboard.tsx` calls `buildSeries(orders, range)` on every render, and the "
                "filter box re-renders the page on each keystroke, so the chart gets a new "
                "array each time. Wrapping it in `useMemo(() => buildSeries(orders, range), "
                "[orders, range])` keeps the series stable; the chart now re-renders only "
                "when the orders or the range change. The dashboard tests pass.",
            ),
        ),
    ),
    Rollout(
        "0196fb02-7c3e-7a98-8e14-4b5d2f9a6c04",
        "/home/dev/work/infra.k8s",
        "main",
        datetime(2026, 4, 30, 9, 3, 27, tzinfo=UTC),
        (
            Turn(
                "pods in CrashLoopBackOff after the last helm upgrade of payments-api: what "
                "changed?",
                "**Reading the pod's events**\n\nDescribe the pod and look at the last "
                "container's exit reason before touching the chart.",
                (
                    Call(
                        "kubectl -n payments describe pod -l app=payments-api | tail -n 6",
                        "    Last State:     Terminated\n"
                        "      Reason:       OOMKilled\n"
                        "      Exit Code:    137\n"
                        "    Limits:\n"
                        "      memory:  128Mi\n"
                        "  Warning  BackOff  kubelet  Back-off restarting failed container\n",
                    ),
                ),
                "The containers are OOMKilled (exit 137): the upgrade took the chart's "
                "default memory limit of 128Mi because `resources:` moved under "
                "`payments.resources` in values.yaml and the old key is ignored. Move the "
                "512Mi limit under the new key and `helm upgrade` again; the CrashLoopBackOff "
                "stops once the pods keep their memory.",
            ),
        ),
    ),
)


class _Clock:
    """Timestamps as Codex writes them (UTC, milliseconds, Z), a few seconds apart."""

    def __init__(self, start: datetime) -> None:
        self.now = start

    def __call__(self, seconds: int = 3) -> str:
        self.now += timedelta(seconds=seconds)
        return self.now.strftime("%Y-%m-%dT%H:%M:%S.") + f"{self.now.microsecond // 1000:03d}Z"


def _line(stamp: str, kind: str, payload: dict[str, Any]) -> dict[str, Any]:
    return {"timestamp": stamp, "type": kind, "payload": payload}


def _message(stamp: str, role: str, text: str) -> dict[str, Any]:
    part = "output_text" if role == "assistant" else "input_text"
    item = {"type": "message", "role": role, "content": [{"type": part, "text": text}]}
    return _line(stamp, "response_item", item)


def _opening(rollout: Rollout, clock: _Clock) -> list[dict[str, Any]]:
    meta = {
        "id": rollout.session_id,
        "timestamp": clock(0),
        "cwd": rollout.cwd,
        "originator": "codex_cli_rs",
        "cli_version": CLI_VERSION,
        "source": "cli",
        "model_provider": "openai",
        "git": {"branch": rollout.branch, "commit_hash": rollout.session_id.replace("-", "")},
    }
    context = (
        f"<environment_context>\n  <cwd>{rollout.cwd}</cwd>\n  <approval_policy>on-request"
        "</approval_policy>\n  <sandbox_mode>workspace-write</sandbox_mode>\n"
        "  <network_access>restricted</network_access>\n  <shell>bash</shell>\n"
        "</environment_context>"
    )
    return [
        _line(meta["timestamp"], "session_meta", meta),
        _message(clock(0), "user", context),
    ]


def _turn(rollout: Rollout, turn: Turn, clock: _Clock, first_call: int) -> list[dict[str, Any]]:
    context = {
        "cwd": rollout.cwd,
        "approval_policy": "on-request",
        "sandbox_policy": {"mode": "workspace-write"},
        "model": MODEL,
        "effort": "medium",
        "summary": "auto",
    }
    stamp = clock(20)
    lines = [
        _line(stamp, "turn_context", context),
        _message(stamp, "user", turn.prompt),
        _line(stamp, "event_msg", {"type": "user_message", "message": turn.prompt}),
    ]
    stamp = clock(4)
    reasoning = {
        "type": "reasoning",
        "summary": [{"type": "summary_text", "text": turn.reasoning}],
        "content": None,
        "encrypted_content": None,
    }
    title = turn.reasoning.split("\n", 1)[0]
    lines += [
        _line(stamp, "response_item", reasoning),
        _line(stamp, "event_msg", {"type": "agent_reasoning", "text": title}),
    ]
    for number, call in enumerate(turn.calls, first_call):
        call_id = f"call_{rollout.session_id[-4:]}{number:02d}"
        arguments = {"command": ["bash", "-lc", call.script], "workdir": rollout.cwd}
        output = {
            "output": call.output,
            "metadata": {"exit_code": call.exit_code, "duration_seconds": 0.9},
        }
        lines += [
            _line(
                clock(2),
                "response_item",
                {
                    "type": "function_call",
                    "name": "shell",
                    "arguments": json.dumps(arguments),
                    "call_id": call_id,
                },
            ),
            _line(
                clock(2),
                "response_item",
                {"type": "function_call_output", "call_id": call_id, "output": json.dumps(output)},
            ),
        ]
    stamp = clock(6)
    lines += [
        _message(stamp, "assistant", turn.answer),
        _line(stamp, "event_msg", {"type": "agent_message", "message": turn.answer}),
    ]
    return lines


def write(root: Path) -> int:
    """Every rollout under `root` (a CODEX_HOME), as Codex names them; how many."""
    for rollout in ROLLOUTS:
        clock = _Clock(rollout.start)
        lines = _opening(rollout, clock)
        calls = 0
        for turn in rollout.turns:
            lines += _turn(rollout, turn, clock, calls)
            calls += len(turn.calls)
        stamp = rollout.start.strftime("%Y-%m-%dT%H-%M-%S")
        folder = root / "sessions" / rollout.start.strftime("%Y/%m/%d")
        folder.mkdir(parents=True, exist_ok=True)
        path = folder / f"rollout-{stamp}-{rollout.session_id}.jsonl"
        path.write_text("".join(json.dumps(line, ensure_ascii=False) + "\n" for line in lines))
    return len(ROLLOUTS)
