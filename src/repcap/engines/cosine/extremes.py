"""The extreme pairs of a tiled pass: the largest |cos|, the top-k most similar pairs, and each
row's nearest neighbour, each updated one tile at a time."""

from __future__ import annotations

import math

import torch


class MaxAbs:
    """The largest |cos| seen so far and the pair (tile-local rows offset by the tile's origin)."""

    def __init__(self) -> None:
        self.value = -1.0
        self.pair = (0, 1)

    def update(
        self, vmin: float, vmax: float, at_min: tuple[int, int], at_max: tuple[int, int], r0: int, c0: int
    ) -> None:
        """Update from a tile's smallest and largest value and their (first) positions in the tile."""
        if max(vmax, -vmin) <= self.value:
            return
        ri, cj = at_max if vmax >= -vmin else at_min
        self.value, self.pair = max(vmax, -vmin), (r0 + ri, c0 + cj)


class NearestNeighbours:
    """Each row's largest cosine with any other row (of the rows visited)."""

    def __init__(self, m: int, device: torch.device) -> None:
        self.cos = torch.full((m,), -math.inf, dtype=torch.float32, device=device)

    def update(self, rmax: torch.Tensor, cmax: torch.Tensor | None, r0: int, c0: int) -> None:
        """From a tile's row maxima and (off the diagonal) column maxima."""
        rmax = rmax.to(self.cos.device)
        self.cos[r0 : r0 + rmax.shape[0]] = torch.maximum(self.cos[r0 : r0 + rmax.shape[0]], rmax)
        if cmax is not None:
            cmax = cmax.to(self.cos.device)
            self.cos[c0 : c0 + cmax.shape[0]] = torch.maximum(self.cos[c0 : c0 + cmax.shape[0]], cmax)


class TopPairs:
    """The ``k`` most similar pairs.  Only rows whose maximum beats a lower bound on the k-th best
    pair are searched: the k-th largest row maximum of the tile (2k-th on a diagonal tile, where a
    pair can be the maximum of both its rows) or the k-th best kept so far."""

    def __init__(self, k: int, device: torch.device) -> None:
        self.k = int(k)
        self.device = device
        self.v = torch.empty(0, dtype=torch.float32, device=device)
        self.i = torch.empty(0, dtype=torch.int64, device=device)
        self.j = torch.empty(0, dtype=torch.int64, device=device)

    def update(self, T: torch.Tensor, rmax: torch.Tensor, r0: int, c0: int, diag: bool) -> None:
        if self.k <= 0:
            return
        kth = self.k * (2 if diag else 1)
        thr = float(self.v.min()) if self.v.numel() >= self.k else -math.inf
        if rmax.numel() >= kth:
            thr = max(thr, float(torch.topk(rmax, kth).values[-1]))
        rmax = rmax.to(self.device)
        rows = torch.nonzero(rmax >= thr).flatten()
        if not rows.numel():
            return
        sub = T[rows]
        if diag:  # only j > i inside a diagonal tile
            sub = sub.masked_fill(torch.arange(T.shape[1], device=self.device)[None, :] <= rows[:, None], -math.inf)
        hit = torch.nonzero(sub >= thr)
        if not hit.numel():
            return
        self.v = torch.cat([self.v, sub[hit[:, 0], hit[:, 1]]])
        self.i = torch.cat([self.i, rows[hit[:, 0]] + r0])
        self.j = torch.cat([self.j, hit[:, 1] + c0])
        if self.v.numel() > self.k:
            keep = torch.topk(self.v, self.k).indices
            self.v, self.i, self.j = self.v[keep], self.i[keep], self.j[keep]

    def pairs(self, row_index) -> list[tuple[int, int, float]]:
        """``[(i, j, cos)]`` in input row indices (``i < j``), most similar first."""
        tv = self.v.cpu().numpy()
        order = sorted(range(len(tv)), key=lambda a: -tv[a])
        ti, tj = self.i.cpu().numpy(), self.j.cpu().numpy()
        out = []
        for a in order:
            x, y = int(row_index[ti[a]]), int(row_index[tj[a]])
            out.append((min(x, y), max(x, y), float(tv[a])))
        return out
