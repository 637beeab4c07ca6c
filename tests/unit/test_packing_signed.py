"""The packing engine's signed mode (repcap.engines.packing.signed): the loss of max(cos, 0) instead of |cos|,
which packs points (a spherical code) rather than lines.  The tiled pass against the dense autograd
reference and a hand formula, the largest cosine against a dense Gram, the sweep point, and two
acceptance tests against codes whose smallest angle is known (Cohn's table,
data/reference/best_known_packings.csv)."""

from __future__ import annotations

import math

import numpy as np
import pytest
import torch

from repcap import RepcapError, sweep
from repcap.engines import constructions, packing
from repcap.engines.packing import signed


@pytest.mark.parametrize("loss", ["power", "exp", "abs-relu"])
@pytest.mark.parametrize("tile", [7, None])
def test_signed_tiled_pass_matches_the_dense_reference(loss, tile):
    g = torch.Generator().manual_seed(1)
    V = packing.normalise(torch.randn(2, 5, 40, generator=g, dtype=torch.float64))
    total, grad, mx = packing.loss_and_grad(V, loss, beta=3.0, p=6.0, tile=tile, want_max=True, signed=True)
    W = V.clone().requires_grad_(True)
    ref = packing.dense_loss(W, loss, beta=3.0, p=6.0, signed=True)
    ref.sum().backward()
    torch.testing.assert_close(total, ref.detach(), rtol=1e-10, atol=1e-10)
    torch.testing.assert_close(grad, W.grad, rtol=1e-9, atol=1e-10)
    G = V.transpose(1, 2) @ V
    off = ~torch.eye(40, dtype=torch.bool)
    torch.testing.assert_close(mx, G.masked_fill(~off, -2.0).amax(dim=(1, 2)))
    # the loss by hand: the lines' function of max(cos, 0) over the ordered pairs
    C = torch.relu(G)
    f = {"power": C**6.0, "exp": torch.exp(3.0 * C**2), "abs-relu": C}[loss]
    torch.testing.assert_close(total, (f * off).sum(dim=(1, 2)))
    # and it is not the lines' loss
    assert not torch.allclose(total, packing.dense_loss(V, loss, beta=3.0, p=6.0))


def test_bad_input_is_one_line():
    for sign in (True, False):  # an unknown name once fell through to abs-relu on the lines' side
        with pytest.raises(RepcapError, match="unknown loss 'cube'"):
            packing.loss_and_grad(torch.zeros(1, 2, 3), "cube", signed=sign)
    with pytest.raises(RepcapError, match=r"shape \(B, d, k\)"):
        packing.loss_and_grad(torch.zeros(2, 3), signed=True)
    with pytest.raises(RepcapError, match="column tiles only"):
        packing.loss_and_grad(torch.zeros(1, 2, 3), signed=True, symmetric=True)
    with pytest.raises(RepcapError, match="share every setting"):
        signed.sweep_signed([dict(k=6, d=3, seed=0), dict(k=7, d=3, seed=1)])


def test_the_sweep_point_batches_seeds_and_reports_the_closest_points(tmp_path):
    cfgs = [dict(k=8, d=3, steps=20, seed=s, device="cpu") for s in (0, 1)]
    cache = sweep.Cache(tmp_path)
    rep = sweep.run(signed.sweep_signed, cfgs, cache=cache, batched=True, group_by=packing.packed_group, progress=False)
    out = rep.results
    again = sweep.run(
        signed.sweep_signed, cfgs, cache=cache, batched=True, group_by=packing.packed_group, progress=False
    )
    assert rep.n_computed == 2 and again.n_cached == 2  # keyed by its own code, cached like any point
    for c, r in zip(cfgs, out):
        _, mc = signed.optimise_signed(packing.PackConfig(**c))  # one seed alone: the same run
        assert r["max_cos"] == pytest.approx(float(mc[0]), abs=1e-6)
        assert r["min_angle_deg"] == pytest.approx(math.degrees(math.acos(r["max_cos"])))
        assert r["max_cos_curve"][-1] == pytest.approx(r["max_cos"])
    V = signed.optimise_signed(packing.PackConfig(k=8, d=3, steps=5, device="cpu"))[0].V.double()
    G = V[0].T @ V[0] - 3 * torch.eye(8, dtype=torch.float64)
    assert signed.max_cos(V)[0] == pytest.approx(float(G.max()), abs=1e-12)
    assert np.isfinite(out[0]["eps_star"])


#: Margin of the acceptance tests: the optimiser minimises a smooth surrogate (the sum of relu(cos)^p,
#: p = 20 by Guha's rule at these d), not the smallest angle itself; its minimiser may trade the closest
#: pairs against the next ones, and Adam at a fixed rate jitters.  2% of the angle leaves room for both and
#: still rejects the neighbouring local optima (a random start sits near 20 degrees).
MARGIN = 0.02


@pytest.mark.parametrize("N, d", [(24, 3), (120, 4)])
def test_signed_mode_reaches_the_known_codes_from_random_starts(N, d):
    best = constructions.best_known("points").set_index(["N", "d"]).loc[(N, d), "angle_deg"]
    _, mc = signed.optimise_signed(packing.PackConfig(k=N, d=d, device="cpu"), seeds=[0, 1])
    angles = [math.degrees(math.acos(float(c))) for c in mc]
    assert max(angles) >= best * (1 - MARGIN), (angles, best)
    # no run beats the optimum (Robinson 1961: the snub cube; Cohn & Kumar 2007: the 600-cell)
    assert max(angles) <= best + 0.01
