"""The superposition toy model of Liu, Liu & Gore 2025 (arXiv:2505.10465), ``y = ReLU(x W Wᵀ + b)``,
trained many models at a time with the paper's signed weight-decay AdamW; the model, its data,
optimiser, schedule, batching and measurements are told in full in :mod:`.model`.  Modules, in the
direction data flows: :mod:`.data`, :mod:`.sparse_data`, :mod:`.model`, :mod:`.sparse_model`,
:mod:`.optim`, :mod:`.schedule`, :mod:`.measurements`, :mod:`.training`, :mod:`.theory`, :mod:`.points`;
the settings are :mod:`repcap.engines.settings.toy`'s.  It may import :mod:`repcap.base`,
:mod:`repcap.sweep` and the engines below it."""

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

__all__ = ["DISTRIBUTIONS", "LR_RULES", "REPRESENTED_NORM", "SAMPLERS", "SWEEP_DEFAULTS", "V_MEAN", "V_SQ_MEAN"]
__all__ += ["AdamState", "ModelSpec", "SparseBatch", "SparseSampler", "TrainConfig", "TrainResult", "adam_"]
__all__ += ["choose_sampler", "decay_", "frequencies", "group_key", "init_params", "loss_and_grad", "lr_schedule"]
__all__ += ["mean_sq_overlap", "measure", "models_per_batch", "norm_histogram", "peak_lrs", "phi_half", "row_norms"]
__all__ += ["run_sweep", "sample_batch", "sparse_loss_and_grad", "sweep_config", "train", "train_points"]
__all__ += ["unlearned_loss", "weak_exponent"]
