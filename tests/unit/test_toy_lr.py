"""The learning rates the toy trainer uses: the main sweep's constant 1e-2 and the per-width rates
of Liu, Liu & Gore 2025's large run (exp-17: W 0.02 (8/m)^(1/4), b 2/m, warm-up 5% of the steps,
cosine to 0.05 x), checked on what the optimiser is actually handed, and on the step it takes."""

from __future__ import annotations

import math

import pytest
import torch

from repcap.engines import toy
from repcap.engines.toy import training as train_module


def paper_multiplier(t: int, steps: int, warmup: int, final: float = 0.05) -> float:
    """Linear warm-up to 1 over ``warmup`` steps, then a half cosine from 1 to ``final`` at the last step."""
    if t < warmup:
        return (t + 1) / warmup
    return final + (1 - final) * (1 + math.cos(math.pi * (t - warmup) / (steps - warmup - 1))) / 2


def spy_on_optimiser(monkeypatch) -> dict[str, list[torch.Tensor]]:
    """Record the lr vector handed to every decay and Adam call of a training run."""
    seen: dict[str, list[torch.Tensor]] = {"decay": [], "W": [], "b": []}
    real_adam, real_decay = train_module.adam_, train_module.decay_

    def adam(param, grad, state, lr, *a, **k):
        seen["W" if param.dim() == 3 else "b"].append(lr.detach().double().cpu().clone())
        return real_adam(param, grad, state, lr, *a, **k)

    def decay(W, lr, gamma, *a, **k):
        seen["decay"].append(lr.detach().double().cpu().clone())
        return real_decay(W, lr, gamma, *a, **k)

    monkeypatch.setattr(train_module, "adam_", adam)
    monkeypatch.setattr(train_module, "decay_", decay)
    return seen


@pytest.mark.parametrize("m", [4, 16])
def test_liu_exp17_rates_per_width_as_used_by_the_optimiser(monkeypatch, m):
    steps = 40
    seen = spy_on_optimiser(monkeypatch)
    cfg = toy.TrainConfig(n=12, m=m, steps=steps, batch=8, lr_rule="liu-exp17", warmup_fraction=0.05, device="cpu")
    specs = [toy.ModelSpec(gamma=-1.0, seed=1), toy.ModelSpec(gamma=0.3, seed=2)]
    res = toy.train(specs, cfg)
    w_peak, b_peak = 0.02 * (8 / m) ** 0.25, 2 / m
    torch.testing.assert_close(res.lr, torch.full((2,), w_peak, dtype=torch.float64), rtol=1e-15, atol=0)
    torch.testing.assert_close(res.bias_lr, torch.full((2,), b_peak, dtype=torch.float64), rtol=1e-15, atol=0)
    warmup = 2  # 5% of 40 steps
    assert cfg.resolved_warmup() == warmup
    ref = torch.tensor([paper_multiplier(t, steps, warmup) for t in range(steps)], dtype=torch.float64)
    torch.testing.assert_close(res.schedule, ref, rtol=1e-12, atol=0)
    assert res.schedule[warmup - 1] == 1.0 and res.schedule[-1] == pytest.approx(0.05)
    assert len(seen["W"]) == len(seen["b"]) == len(seen["decay"]) == steps
    for t in range(steps):
        # float32 rates, as the optimiser sees them
        torch.testing.assert_close(
            seen["W"][t], torch.full((2,), w_peak * ref[t].item(), dtype=torch.float64), rtol=2e-7, atol=0
        )
        torch.testing.assert_close(seen["decay"][t], seen["W"][t], rtol=0, atol=0)
        torch.testing.assert_close(
            seen["b"][t], torch.full((2,), b_peak * ref[t].item(), dtype=torch.float64), rtol=2e-7, atol=0
        )


@pytest.mark.parametrize("m", [4, 16])
def test_first_step_moves_w_and_b_by_their_own_rates(m):
    # One step, no decay, no warm-up: Adam's first update of an entry is lr * g / (|g| + eps), so
    # the largest change of W is W's rate and the largest change of b is b's rate.
    n, seed = 12, 3
    cfg = toy.TrainConfig(n=n, m=m, steps=1, batch=64, lr_rule="liu-exp17", warmup=0, device="cpu")
    res = toy.train([toy.ModelSpec(gamma=0.0, seed=seed, alpha=0.3)], cfg)
    W0, b0, _ = toy.init_params(n, m, [seed], torch.device("cpu"))
    dW, db = (res.W - W0).abs().max().item(), (res.b - b0).abs().max().item()
    assert dW == pytest.approx(0.02 * (8 / m) ** 0.25, rel=1e-4)
    assert db == pytest.approx(2 / m, rel=1e-4)


def test_rate_precedence_and_the_constant_rule():
    cfg = toy.TrainConfig(n=10, m=4, steps=1, batch=4, device="cpu")
    res = toy.train([toy.ModelSpec(seed=0), toy.ModelSpec(seed=1, lr=0.03), toy.ModelSpec(seed=2, bias_lr=0.5)], cfg)
    assert res.lr.tolist() == [1e-2, 0.03, 1e-2]  # the main sweep's 1e-2 unless a model has its own
    assert res.bias_lr.tolist() == [1e-2, 0.03, 0.5]  # b follows W unless given
    cfg = toy.TrainConfig(n=10, m=4, steps=1, batch=4, lr=0.07, device="cpu")
    assert toy.train([toy.ModelSpec()], cfg).lr.tolist() == [0.07]
    liu = toy.TrainConfig(n=10, m=32, steps=1, batch=4, lr_rule="liu-exp17", device="cpu")
    res = toy.train([toy.ModelSpec(), toy.ModelSpec(lr=0.05), toy.ModelSpec(bias_lr=0.01)], liu)
    assert res.lr.tolist() == pytest.approx([0.02 * 0.25**0.25, 0.05, 0.02 * 0.25**0.25], rel=1e-15)
    assert res.bias_lr.tolist() == pytest.approx([2 / 32, 2 / 32, 0.01], rel=1e-15)


def test_schedule_settings_and_sweep_points_carry_the_rule():
    assert toy.TrainConfig(steps=40000, warmup_fraction=0.05).resolved_warmup() == 2000  # the large run
    assert toy.TrainConfig(steps=20000).resolved_warmup() == 2000  # the main sweep: steps // 10
    assert toy.TrainConfig(steps=100, warmup=7).resolved_warmup() == 7
    base = dict(n=12, m=4, steps=20, batch=8)
    a = toy.sweep_config(**base, lr_rule="liu-exp17", warmup_fraction=0.05)
    assert toy.group_key(a) != toy.group_key(toy.sweep_config(**base))  # a different schedule: another batch
    assert toy.group_key(toy.sweep_config(**base, bias_lr=0.1)) == toy.group_key(toy.sweep_config(**base))
    [pt] = toy.train_points([a], device="cpu")
    ref = toy.train([toy.ModelSpec()], toy.TrainConfig(**base, lr_rule="liu-exp17", warmup_fraction=0.05, device="cpu"))
    assert pt["loss"] == pytest.approx(ref.loss[0].item(), rel=1e-6)
