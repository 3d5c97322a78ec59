"""The examples' choice of arrays: NumPy on the CPU, or CuPy on the GPU when
--gpu is given and both CuPy and a GPU balsa can use are there."""

import numpy as np

import balsa


def array_module(gpu):
    """(xp, device, to_host): the array module, balsa's device name, and a
    function returning a NumPy copy of an xp array."""
    if gpu:
        try:
            import cupy
        except ImportError:
            cupy = None
        if cupy is not None and balsa.cuda_available():
            return cupy, "cuda", cupy.asnumpy
        print(f"--gpu: {'balsa has no usable GPU' if cupy else 'CuPy is not installed'}, running on the CPU")
    return np, "cpu", np.asarray
