"""The layout of a kernel's feature vector (`tuner.features`): the per-store and
whole-kernel features, their names and positions, and the hardware sizes they are
measured in (the caches are the target's: `features.extract_features`)."""

from __future__ import annotations

CACHE_LINE_BYTES = 64
VECTOR_BYTES = 64  # a vector register (AVX-512; tile sizes are compared in these units)
BUFFER_SLOTS = 3  # buffers described one by one per store (the most touched first)

BUFFER_FIELDS = ("bytes", "unique_bytes", "lines", "reuse", "stride_class", "local")

STORE_FEATURES: tuple[str, ...] = (
    # Arithmetic: operation counts of the stored value x trip count.
    "trip",
    "float_add",  # add / sub
    "float_mul",
    "float_fma",  # an add or sub with a multiplication operand (an FMA candidate)
    "float_div",
    "float_minmax",
    "float_math",  # intrinsics: exp, log, tanh, sqrt, ...
    "float_select_cmp",  # selects and float comparisons
    "int_ops",  # integer arithmetic, index computations included
    "int8_mul",  # products of 8-bit values (widened; int16 weights too): 8-bit kernels' arithmetic
    "flops",  # all float operations above (an FMA counts as its add and its mul)
    # Loops around the store.
    "depth",
    "serial_loops",
    "serial_extent",  # product of the serial loops' extents
    "parallel_loops",
    "parallel_extent",
    "vectorized_loops",
    "vector_len",  # product of the vectorized loops' extents
    "innermost_vector_len",  # extent of the innermost loop when it is vectorized, else 0
    "unrolled_loops",
    "unrolled_extent",
    "innermost_extent",
    "work_per_thread",  # trip / (parallel extent x GPU blocks x GPU threads)
    "gpu_blocks",  # product of the loops bound to blockIdx.* (0: none, as on a CPU)
    "gpu_threads",  # product of the loops bound to threadIdx.* (0: none)
    "guards",  # enclosing if-statements
    # Memory: the store and every load of its value.
    "loads",
    "bytes_loaded",
    "bytes_stored",
    "unique_bytes_loaded",
    "unique_bytes_stored",
    "unique_lines",
    "stride0_bytes",  # loaded bytes whose index does not move with the innermost loop
    "stride1_bytes",  # ... moves by one element per innermost iteration
    "strided_bytes",  # ... moves by more, or non-linearly
    "gather_loads",  # strided loads x trip under a vectorized innermost loop
    "local_bytes",  # bytes touched in local scope or loop-scoped allocations
    "reuse",  # bytes touched / unique bytes
    "arith_intensity",  # flops / unique bytes
    "traffic_l1",  # bytes refetched when each working set that fits the target's L1 is loaded once
    "traffic_l2",  # the same for the target's L2
    "vector_lane_use",  # innermost vector length / the lanes its vectors hold (0 to 1)
    # Runs: consecutive iterations of the innermost loops outside the vectorized ones
    # ("vector") or outside the register tile (the innermost loops that are all unrolled
    # or vectorized: "tile") over which an access keeps the elements it touches inside,
    # so that it can keep them in registers.
    "store_run_vector",  # the stored elements' (accumulators updated this often in a row)
    "loads_per_iteration_vector",  # sum over loads of 1 / their run
    "store_run_tile",
    "loads_per_iteration_tile",
    # Independent updates: from the innermost loop outwards, the vectors of the stored
    # buffer touched before a loop repeats an element (chains an update can interleave);
    # "tile": only through the register tile's loops.
    "store_chains",
    "store_chains_tile",
    *(f"buf{slot}.{name}" for slot in range(BUFFER_SLOTS) for name in BUFFER_FIELDS),
)

KERNEL_FEATURES: tuple[str, ...] = (
    "stores",
    "loads",
    "loop_nests",
    "loops",
    "allocations",
    "alloc_bytes_local",
    "alloc_bytes_global",
    "max_alloc_bytes",
    "param_bytes",
    "intensity",  # total flops / parameter bytes
    "guards",
    "lets",
)

FEATURE_NAMES: tuple[str, ...] = (
    *(f"sum.{name}" for name in STORE_FEATURES),
    *(f"max.{name}" for name in STORE_FEATURES),
    *(f"main.{name}" for name in STORE_FEATURES),
    *(f"kernel.{name}" for name in KERNEL_FEATURES),
)
NUM_FEATURES = len(FEATURE_NAMES)
