"""GitHub's concurrency rule as a model: per group, at most one running and one pending run.

A run (or job) that enters a group while another one runs waits as the group's pending run; if
a pending run is already waiting, that one is cancelled and the newcomer takes its place. With
`cancel-in-progress: true` the newcomer also cancels the running one. Runs without a group
start at once. Workflow-level concurrency claims the group when the run is queued, before any
job's `if:` is evaluated; job-level concurrency only when the job is about to run, so a job
that its `if:` skips never claims the group.
"""

from __future__ import annotations

from dataclasses import dataclass, field


@dataclass
class _Slot:
    running: str | None = None
    pending: str | None = None


@dataclass
class ConcurrencyQueue:
    """Replays arrivals and completions; records which runs started and which were cancelled."""

    slots: dict[str, _Slot] = field(default_factory=dict)
    started: list[str] = field(default_factory=list)
    cancelled: list[str] = field(default_factory=list)
    group_of: dict[str, str | None] = field(default_factory=dict)

    def arrive(self, run: str, group: str | None, cancel_in_progress: bool = False) -> None:
        self.group_of[run] = group
        if group is None:
            self.started.append(run)
            return
        slot = self.slots.setdefault(group, _Slot())
        if cancel_in_progress:
            for old in (slot.running, slot.pending):
                if old is not None:
                    self.cancelled.append(old)
            slot.running, slot.pending = run, None
            self.started.append(run)
        elif slot.running is None:
            slot.running = run
            self.started.append(run)
        else:
            if slot.pending is not None:
                self.cancelled.append(slot.pending)
            slot.pending = run

    def finish(self, run: str) -> None:
        """The running `run` completes; its group's pending run (if any) starts."""
        group = self.group_of.get(run)
        if group is None:
            return
        slot = self.slots[group]
        if slot.running != run:
            return  # cancelled earlier, or never started
        slot.running, slot.pending = slot.pending, None
        if slot.running is not None:
            self.started.append(slot.running)

    def running(self) -> list[str]:
        return [slot.running for slot in self.slots.values() if slot.running is not None]

    def drain(self) -> None:
        """Let every running run finish, in group order, until nothing waits."""
        while self.running():
            for run in self.running():
                self.finish(run)
