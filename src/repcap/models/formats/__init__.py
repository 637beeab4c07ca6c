"""Model file formats, one module each, with the checks that refuse hostile or broken files before
anything they declare is allocated: :mod:`.safetensors`, :mod:`.gguf`, :mod:`.onnx`, :mod:`.npy`;
:mod:`.names` chooses the embedding or head tensor, :mod:`.common` refuses pickles and
:mod:`.dispatch` picks the reader by suffix.  Never unpickles (``.bin``/``.pt``/``.pth``/``.ckpt``/
``.pkl``) and never runs code from a file."""

from .common import PICKLE_SUFFIXES
from .dispatch import SUFFIXES, list_tensors, load_file
from .gguf import GGUF_OK_TYPES, GGUFFile, bytelevel_decode, load_gguf, open_gguf
from .names import EMBED_NAMES, HEAD_NAMES, choose_tensor, pick_tensor, tie_flag
from .npy import check_npy, load_npy
from .onnx import load_onnx
from .safetensors import SAFETENSORS_DTYPE_BITS, check_safetensors, load_safetensors

__all__ = ["EMBED_NAMES", "GGUF_OK_TYPES", "HEAD_NAMES", "PICKLE_SUFFIXES", "SAFETENSORS_DTYPE_BITS", "SUFFIXES"]
__all__ += ["GGUFFile", "bytelevel_decode", "check_npy", "check_safetensors", "choose_tensor", "list_tensors"]
__all__ += ["load_file", "load_gguf", "load_npy", "load_onnx", "load_safetensors", "open_gguf", "pick_tensor"]
__all__ += ["tie_flag"]
