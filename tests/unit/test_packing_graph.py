"""The packing step's CUDA-graph loop (repcap.engines.packing.graph) on the CPU, with torch.cuda's graph API
replaced by stand-ins: every step runs exactly once and in order (the curve's steps and the warm-up
eagerly, one capture, a replay for each other step), a capture that fails leaves the eager loop, and
the loop is only taken on CUDA at a fixed rate.  The captured step is the eager step's own code
(``optimiser._adam_step``), which the packing fingerprints pin; tests/gpu holds the replayed run to the
eager one on a GPU."""

from __future__ import annotations

import contextlib

import pytest
import torch

from repcap.engines.packing import graph


class _Fakes:
    def __init__(self, fail: bool = False):
        self.capturing = None
        self.fail = fail
        self.captures = 0
        fakes = self

        class Graph:
            def __init__(self):
                self.recorded = None

            def replay(self):
                fakes.log.append(("replay", self.recorded))

        class Stream:
            def wait_stream(self, other):
                pass

        @contextlib.contextmanager
        def capture(g):
            fakes.captures += 1
            if fakes.fail:
                raise RuntimeError("operation not permitted when stream is capturing")
            fakes.capturing = g
            try:
                yield
            finally:
                fakes.capturing = None

        self.Graph, self.Stream, self.capture = Graph, Stream, capture
        self.log: list = []

    def install(self, monkeypatch):
        monkeypatch.setattr(torch.cuda, "CUDAGraph", self.Graph)
        monkeypatch.setattr(torch.cuda, "Stream", self.Stream)
        monkeypatch.setattr(torch.cuda, "current_stream", lambda: self.Stream())
        monkeypatch.setattr(torch.cuda, "stream", lambda s: contextlib.nullcontext())
        monkeypatch.setattr(torch.cuda, "graph", self.capture)

    def step(self, step, keep_grad):
        assert keep_grad  # a captured step zeroes the gradient in place
        if self.capturing is not None:
            self.capturing.recorded = step
        else:
            self.log.append(("eager", step))


@pytest.mark.parametrize("steps, every", [(40, 10), (7, 100), (5, 1)])
def test_every_step_runs_once_in_order(monkeypatch, steps, every):
    f = _Fakes()
    f.install(monkeypatch)
    how = graph.captured_loop(range(steps), every, f.step)
    assert len(f.log) == steps  # one entry per step
    others = [t for t in range(steps) if t % every]
    eager = [t for t in range(steps) if t % every == 0] + others[: graph.WARMUP_STEPS]
    assert sorted(t for kind, t in f.log if kind == "eager") == sorted(eager)
    replays = [i for i, (kind, _) in enumerate(f.log) if kind == "replay"]
    assert len(replays) == max(0, len(others) - graph.WARMUP_STEPS)
    for i in replays:  # a replay stands for the step at its place in the sequence
        assert i not in eager and i % every
    assert how == ("graph" if replays else "eager")
    assert f.captures == (1 if replays else 0)


def test_a_capture_that_fails_runs_on_eagerly(monkeypatch):
    f = _Fakes(fail=True)
    f.install(monkeypatch)
    with pytest.warns(UserWarning, match="CUDA graph"):
        how = graph.captured_loop(range(20), 10, f.step)
    assert how == "eager" and f.captures == 1
    assert f.log == [("eager", t) for t in range(20)]


def test_only_cuda_at_a_fixed_rate(monkeypatch):
    cuda, cpu = torch.device("cuda"), torch.device("cpu")
    assert graph.usable(cuda, 1.0) and not graph.usable(cuda, 0.0) and not graph.usable(cpu, 1.0)
    monkeypatch.setenv("REPCAP_FUSED", "0")
    assert not graph.usable(cuda, 1.0)
