"""The GPU kernels (``*.cu``), their Numba twins (``*_cpu.py``) and the one PyCUDA loader.

``load(name)`` compiles ``<name>.cu`` with PyCUDA for the device's own architecture
(``-arch=sm_XY``, sm_90 on an H100; this directory on the include path, for
``common.cuh``) once per process (PyCUDA also caches the compiled code
on disk) and keeps the seconds it took in ``LOAD_SECONDS`` (the GPU solvers load their kernels
in their prepare step, so that compile time stays out of solve times; the timing script prints
these seconds). ``gpu_unavailable()`` says what is missing when the kernels cannot run here.
"""

import ctypes
import functools
import importlib.util
import shutil
import time
from pathlib import Path

KERNEL_DIR = Path(__file__).resolve().parent
LOAD_SECONDS: dict[str, float] = {}
_modules: dict = {}


CUDA_ERROR_NO_DEVICE = 100


@functools.cache
def gpu_unavailable() -> str | None:
    """Why the kernels cannot run here, or None. The lowest layer missing is named first: the
    NVIDIA driver, a device, then PyCUDA and nvcc, so that a machine with no NVIDIA GPU is not
    told to install PyCUDA."""
    missing = _driver_unavailable()
    if missing:
        return missing
    if importlib.util.find_spec("pycuda") is None:
        return "PyCUDA is not installed (pip install 'maxflow-dimacs[cuda]')"
    try:
        import pycuda.driver as cuda

        cuda.init()  # the device count is the driver's, asked above
    except ImportError as error:
        return f"PyCUDA cannot load the CUDA driver: {error}"
    except cuda.Error as error:
        return f"no CUDA device found: {error}"
    if shutil.which("nvcc") is None:
        return "nvcc is not on PATH (PyCUDA compiles the kernels with it)"
    return None


def _driver_unavailable() -> str | None:
    """Ask the CUDA driver library itself (through ctypes, before PyCUDA is looked for)
    whether it is installed and sees a device."""
    try:
        driver = ctypes.CDLL("libcuda.so.1")
    except OSError:
        return ("no NVIDIA driver: libcuda.so.1 cannot be loaded (the GPU solvers need an "
                "NVIDIA GPU)")
    count = ctypes.c_int(0)
    status = driver.cuInit(0)
    if status == 0:
        status = driver.cuDeviceGetCount(ctypes.byref(count))
    if status == CUDA_ERROR_NO_DEVICE or (status == 0 and count.value == 0):
        return "no CUDA device found: the NVIDIA driver lists none"
    if status != 0:
        return f"the NVIDIA driver does not start: cuInit returned CUDA error {status}"
    return None


def load(name: str, defines: tuple[str, ...] = ()):
    """The PyCUDA module of ``<name>.cu``, compiled for the current device on first use;
    `defines` are preprocessor definitions (``"RES_T=int"``), each set compiled apart."""
    key = (name, defines)
    if key not in _modules:
        import pycuda.autoprimaryctx  # noqa: F401  (makes the first device's context current)
        import pycuda.driver as cuda
        from pycuda.compiler import SourceModule

        started = time.perf_counter()
        major, minor = cuda.Context.get_device().compute_capability()
        source = (KERNEL_DIR / f"{name}.cu").read_text()
        _modules[key] = SourceModule(source, arch=f"sm_{major}{minor}", no_extern_c=True,
                                     include_dirs=[str(KERNEL_DIR)],  # common.cuh
                                     options=[f"-D{define}" for define in defines])
        LOAD_SECONDS[" ".join((name,) + defines)] = time.perf_counter() - started
    return _modules[key]
