"""memtui: a local memory for Claude Code and other coding agents."""

import os

# One BLAS thread a process: memtui's matrix products are one query's (a few thousand rows),
# and several memtui processes (one MCP server per Claude Code window) search at once on a
# laptop's cores; OpenBLAS's second thread spun for each of them, doubling a vector search's
# CPU time (bench/README.md). Set before numpy is imported; a value the user set is kept.
os.environ.setdefault("OPENBLAS_NUM_THREADS", "1")

__version__ = "0.1.0"
