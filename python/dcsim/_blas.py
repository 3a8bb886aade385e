"""Imported by the `dcsim` command before anything loads NumPy: one BLAS thread.

OpenBLAS starts a thread per core as NumPy loads, and each spins for about 0.1 s of CPU
waiting for work; the command's arrays are far too small to share among threads, so on 2
cores that spin was a third of the CPU time of a short `dcsim run`. A thread count the user
set, in any of the variables OpenBLAS reads, stands. The library (`import dcsim`) leaves
NumPy as it finds it.
"""

import os

# What OpenBLAS reads for its thread count, in its order.
if not any(os.environ.get(v) for v in ("OPENBLAS_NUM_THREADS", "GOTO_NUM_THREADS", "OMP_NUM_THREADS")):
    os.environ["OPENBLAS_NUM_THREADS"] = "1"
