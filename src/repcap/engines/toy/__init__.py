"""The superposition toy model of Liu, Liu & Gore 2025 ("Superposition Yields Robust Neural
Scaling", arXiv:2505.10465), trained many models at a time.

Model (one per batch entry k)::

    y = ReLU(x W_k W_kᵀ + b_k),   W_k: (n, m) rows = feature vectors,  b_k: (n,)
    W ~ N(0, 1)/sqrt(m),  b ~ N(0, 1)

Data: ``x_i = 1[u_i < p_i] v_i`` with ``u ~ U(0,1)``, ``v ~ U(0,2)``, a fresh batch every step,
feature frequencies ``p`` from :func:`frequencies` (power law ``i^-alpha`` normalised to sum 1,
exponential, linear, or a power law scaled to a chosen activation density).

Data are drawn densely (``B x n`` uniforms a step, :func:`sample_batch`) or, with
``TrainConfig.sampler="sparse"`` (``"auto"``: on a CPU from ``n = 512`` on), as the active entries
only (geometric gaps, :class:`SparseSampler`; same distribution, another stream), and the sparse
batch runs through a forward/backward of three dense products (:func:`sparse_loss_and_grad`).

Optimiser: the paper's signed decoupled weight-decay AdamW, written out over batched tensors
(:func:`decay_`, :func:`adam_`): the decay acts first, then the Adam step; the bias is not decayed.

* ``gamma >= 0``: ``W <- W (1 - lr gamma)``;
* ``gamma < 0``:  ``W_i <- W_i + lr gamma W_i (1 - 1/||W_i||)`` per row (row norms pulled to 1:
  strong superposition).

Schedule: linear warm-up to the peak lr, then cosine decay to ``final_lr_frac`` (0.05) x peak.
Peak rates: 1e-2 for ``W`` and ``b`` (the main sweep), or per width (``lr_rule="liu-exp17"``, the
large run: ``W`` 0.02 (8/m)^(1/4), ``b`` 2/m).

Batching: every tensor carries a leading model axis, ``W: (n_models, n, m)``.  Models of one
``(n, m)`` (and one step count / batch size / schedule) share a batch; ``alpha``, ``gamma``,
``seed``, ``lr``, ``bias_lr`` and the frequency distribution are per-model values.

Measurements (:func:`measure`): the final loss (mean over the last ``loss_window`` steps of the
per-sample squared error summed over features), the represented fraction ``phi_half`` (rows with
``||W_i|| > 1/2``), row norms, and the mean square overlap of normalised rows.  Loss-against-width
exponents come from :func:`repcap.engines.fits.fit_exponent`; the weak-regime prediction (loss carried by
the features a width-m model leaves out, exponent ``alpha - 1``) from :func:`unlearned_loss`.

Modules, in the direction data flows: :mod:`.data` (frequencies, batches), :mod:`.sparse_data`
(the sparse sampler and the ``auto`` rule), :mod:`.model` (initialisation, loss and gradient),
:mod:`.sparse_model` (loss and gradient for sparse data), :mod:`.optim` (signed decay, Adam), :mod:`.schedule`
(learning rates), :mod:`.settings` (:class:`ModelSpec`, :class:`TrainConfig`), :mod:`.measurements`,
:mod:`.training`, :mod:`.theory` (closed forms), :mod:`.points` (sweeps).
"""

from repcap.engines.settings.toy import DISTRIBUTIONS, LR_RULES, SAMPLERS, ModelSpec, TrainConfig

from .data import V_MEAN, V_SQ_MEAN, frequencies, sample_batch
from .measurements import REPRESENTED_NORM, mean_sq_overlap, measure, norm_histogram, phi_half, row_norms
from .model import init_params, loss_and_grad
from .optim import AdamState, adam_, decay_
from .points import SWEEP_DEFAULTS, group_key, models_per_batch, run_sweep, sweep_config, train_points
from .schedule import lr_schedule, peak_lrs
from .sparse_data import SparseBatch, SparseSampler, choose_sampler
from .sparse_model import sparse_loss_and_grad
from .theory import unlearned_loss, weak_exponent
from .training import TrainResult, train

__all__ = [
    "DISTRIBUTIONS",
    "LR_RULES",
    "REPRESENTED_NORM",
    "SAMPLERS",
    "SWEEP_DEFAULTS",
    "V_MEAN",
    "V_SQ_MEAN",
    "AdamState",
    "ModelSpec",
    "SparseBatch",
    "SparseSampler",
    "TrainConfig",
    "TrainResult",
    "adam_",
    "choose_sampler",
    "decay_",
    "frequencies",
    "group_key",
    "init_params",
    "loss_and_grad",
    "lr_schedule",
    "mean_sq_overlap",
    "measure",
    "models_per_batch",
    "norm_histogram",
    "peak_lrs",
    "phi_half",
    "row_norms",
    "run_sweep",
    "sample_batch",
    "sparse_loss_and_grad",
    "sweep_config",
    "train",
    "train_points",
    "unlearned_loss",
    "weak_exponent",
]
