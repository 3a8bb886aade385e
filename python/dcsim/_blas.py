"""Imported by the `dcsim` command before anything loads NumPy: one BLAS thread.

OpenBLAS starts a thread per core as NumPy loads, and each spins for about 0.1 s of CPU
waiting for work; the command's arrays are far too small to share among threads, so on 2
cores that spin was a third of the CPU time of a short `dcsim run`. A value the user set
(OPENBLAS_NUM_THREADS) stands. The library (`import dcsim`) leaves NumPy as it finds it.
"""

import os

os.environ.setdefault("OPENBLAS_NUM_THREADS", "1")
