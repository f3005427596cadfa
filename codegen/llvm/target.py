"""CPU targets: `llvm -mcpu=icelake-server -num-cores=2`, parsed, printed and detected.

A Target names what the kernel is compiled for: the CPU model (`mcpu`), its LLVM
feature string, the triple, and how many cores parallel loops may use. Its string
form is the key records are stored under, so it prints only what a user chose:
the features detected on a host are implied by its CPU name and are not printed.
"""

from __future__ import annotations

import functools
import os
import subprocess
import sys
from dataclasses import dataclass, replace

import llvmlite.binding as llvm

from codegen.errors import TargetError
from codegen.llvm.cpu_facts import core_facts
from ir.graph.passes.realize_quantized import DOT4, NONE, PAIRS
from ir.schedule.hardware import HardwareParams

_KNOWN_OPTIONS = ("-mcpu", "-num-cores", "-mattr", "-mtriple")

# Widest vector registers of CPUs named without a feature string (when they are not
# the host, whose features are detected instead).
_AVX512_CPUS = (
    "skylake-avx512", "cascadelake", "cooperlake", "cannonlake", "icelake-client",
    "icelake-server", "tigerlake", "rocketlake", "sapphirerapids", "emeraldrapids",
    "graniterapids", "graniterapids-d", "diamondrapids", "znver4", "znver5", "x86-64-v4",
)  # fmt: skip
_AVX2_CPUS = (
    "haswell", "broadwell", "skylake", "alderlake", "raptorlake", "meteorlake", "arrowlake",
    "lunarlake", "gracemont", "znver1", "znver2", "znver3", "x86-64-v3", "bdver4",
)  # fmt: skip


# 8-bit dot products (vpdpbusd) of CPUs named without a feature string: AVX-512 VNNI, and
# the VEX-encoded AVX-VNNI of Intel's hybrid cores (256-bit vectors at most).
_FEATURES_OF_CPUS = {
    "avx512vnni": (
        "cascadelake", "cooperlake", "icelake-client", "icelake-server", "tigerlake",
        "rocketlake", "sapphirerapids", "emeraldrapids", "graniterapids", "graniterapids-d",
        "diamondrapids", "znver4", "znver5",
    ),
    "avxvnni": (
        "alderlake", "raptorlake", "meteorlake", "arrowlake", "lunarlake", "gracemont",
        "sierraforest", "grandridge", "sapphirerapids", "emeraldrapids", "graniterapids",
        "graniterapids-d", "diamondrapids", "znver5",
    ),
    "avx512vl": _AVX512_CPUS,
    "avx512bw": _AVX512_CPUS,
}  # fmt: skip


@dataclass(frozen=True, slots=True)
class CpuTarget:
    """A CPU to compile for; `str(target)` is its canonical target string."""

    kind: str
    mcpu: str
    num_cores: int
    features: str  # the LLVM feature string passed to the code generator ("" = implied)
    triple: str
    mattr: tuple[str, ...] = ()  # features the user asked for with -mattr (printed)

    def __str__(self) -> str:
        text = f"{self.kind} -mcpu={self.mcpu} -num-cores={self.num_cores}"
        if self.mattr:
            text += f" -mattr={','.join(self.mattr)}"
        if self.triple != _process_triple():
            text += f" -mtriple={self.triple}"
        return text

    @property
    def vector_bits(self) -> int:
        """Width of the widest SIMD registers: 512 (AVX-512), 256 (AVX2) or 128."""
        enabled: dict[str, bool] = {}  # later entries win, as they do in LLVM
        for flag in filter(None, self.features.split(",")):
            enabled[flag[1:]] = flag[0] == "+"
        bits = 512 if self.mcpu in _AVX512_CPUS else 256 if self.mcpu in _AVX2_CPUS else 128
        if "avx512f" in enabled:
            bits = 512 if enabled["avx512f"] else min(bits, 256)
        if "avx2" in enabled:  # AVX-512 depends on AVX2: turning AVX2 off turns both off
            bits = max(bits, 256) if enabled["avx2"] else 128
        return bits

    def has_feature(self, feature: str) -> bool:
        """Whether the CPU has `feature` (an LLVM feature name such as "avx512vnni"): as
        the feature string says, else as its CPU name implies (for the features listed
        in _FEATURES_OF_CPUS; False for others)."""
        enabled: bool | None = None
        for flag in filter(None, self.features.split(",")):
            if flag[1:] == feature:
                enabled = flag[0] == "+"
        if enabled is not None:
            return enabled
        return self.mcpu in _FEATURES_OF_CPUS.get(feature, ())

    @property
    def dot_product_lanes(self) -> int:
        """The int32 lanes of one 8-bit dot-product instruction (vpdpbusd): 16 with
        AVX-512 VNNI, 8 with AVX-VNNI (or AVX-512 VNNI on 256-bit vectors); 0 without."""
        avx512 = self.has_feature("avx512vnni") and self.vector_bits == 512
        if avx512:
            return 16
        if self.vector_bits >= 256 and self.has_feature("avxvnni"):
            return 8
        return 0

    @property
    def integer_products(self) -> str:
        """Which 8-bit convs pay as int32 kernels here (RealizeQuantized's `products`):
        "dot4" all of them (8-bit dot products), "pairs" all of them too (AVX2's
        vpmaddubsw or vpmaddwd, by the weights), "none" none."""
        if self.dot_product_lanes:
            return DOT4
        return PAIRS if self.vector_bits >= 256 else NONE

    @property
    def hardware(self) -> HardwareParams:
        """What schedules need to know of this CPU: vector width, registers, cores and
        one core's caches and FMA pipes (the host's caches where this is the host)."""
        on_host = self.mcpu == _host_cpu_name() and self.triple == _process_triple()
        core = core_facts(self.mcpu, on_host)
        if self.vector_bits < 512 and core.fma_units < 2:
            # Cores that fuse two FMA pipes for 512-bit vectors have both for narrower ones.
            core = replace(core, fma_units=2)
        return HardwareParams(
            vector_bytes=self.vector_bits // 8,
            num_cores=self.num_cores,
            # x86 has 16 vector registers, 32 with AVX-512 (the default); AArch64 has 32.
            vector_registers=32 if self.triple.startswith(("aarch64", "arm64")) else 0,
            core=core,
        )

    def vector_lanes(self, dtype_bytes: int) -> int:
        """How many elements of `dtype_bytes` bytes fill one vector register."""
        return max(1, self.vector_bits // (8 * dtype_bytes))


@functools.cache
def _process_triple() -> str:
    return str(llvm.get_process_triple())


@functools.cache
def _host_cpu_name() -> str:
    return str(llvm.get_host_cpu_name())


@functools.cache
def _host_features() -> str:
    return str(llvm.get_host_cpu_features().flatten())


def host_cores() -> int:
    """How many cores this process may run on."""
    return len(os.sched_getaffinity(0))


def host_target() -> CpuTarget:
    """The CPU this process runs on, with every core it may use."""
    return CpuTarget(
        kind="llvm",
        mcpu=_host_cpu_name(),
        num_cores=host_cores(),
        features=_host_features(),
        triple=_process_triple(),
    )


def parse_cpu_target(text: str) -> CpuTarget:
    """Parse `llvm` (the host) or `llvm -mcpu=X -num-cores=N [-mattr=+a,-b] [-mtriple=T]`.

    Options left out take the host's values; features of a CPU other than the host's
    are left for LLVM to imply from its name.
    """
    words = text.split()
    if not words:
        raise TargetError("empty target string; expected e.g. 'llvm -mcpu=icelake-server'")
    if words[0] != "llvm":
        raise TargetError(
            f"unknown target kind {words[0]!r} in {text!r}; the LLVM backend compiles 'llvm'"
        )
    options: dict[str, str] = {}
    for word in words[1:]:
        key, sep, value = word.partition("=")
        if key not in _KNOWN_OPTIONS:
            raise TargetError(
                f"unknown target option {key!r} in {text!r}; known: {', '.join(_KNOWN_OPTIONS)}"
            )
        if not sep or not value:
            raise TargetError(f"target option {key!r} in {text!r} needs a value ({key}=...)")
        if key in options:
            raise TargetError(f"target option {key!r} given twice in {text!r}")
        options[key] = value
    host = host_target()
    mcpu = options.get("-mcpu", host.mcpu)
    num_cores = _parse_cores(options.get("-num-cores"), host.num_cores, text)
    triple = options.get("-mtriple", host.triple)
    mattr = tuple(options["-mattr"].split(",")) if "-mattr" in options else ()
    for flag in mattr:
        if len(flag) < 2 or flag[0] not in "+-":
            raise TargetError(f"-mattr entries look like +avx2 or -avx512f; got {flag!r}")
    implied = host.features if (mcpu == host.mcpu and triple == host.triple) else ""
    features = ",".join(part for part in (implied, *mattr) if part)
    return CpuTarget("llvm", mcpu, num_cores, features, triple, mattr)


def _parse_cores(value: str | None, default: int, text: str) -> int:
    if value is None:
        return default
    if not value.isdigit() or int(value) < 1:
        raise TargetError(f"-num-cores must be a positive integer in {text!r}; got {value!r}")
    return int(value)


# Run in a child: make a target machine for (cpu, triple) and its subtarget; LLVM warns of
# a processor it does not know on stderr (and later aborts a process compiling for it).
_CPU_PROBE = """
import sys
import llvmlite.binding as llvm
llvm.initialize_native_target()
machine = llvm.Target.from_triple(sys.argv[2]).create_target_machine(cpu=sys.argv[1])
machine.target_data
"""


@functools.cache
def llvm_knows_cpu(cpu: str, triple: str) -> bool:
    """Whether LLVM knows the processor `cpu` for `triple`. Asked in a child process: LLVM
    only warns of an unknown one, then ends the process that compiles for it."""
    done = subprocess.run(
        [sys.executable, "-c", _CPU_PROBE, cpu, triple],
        capture_output=True,
        text=True,
        timeout=120,
        check=False,
    )
    return done.returncode == 0 and "is not a recognized processor" not in done.stderr


def check_known_cpu(target: CpuTarget) -> None:
    """TargetError when LLVM does not know the target's processor (a typo in -mcpu)."""
    if target.mcpu != host_target().mcpu and not llvm_knows_cpu(target.mcpu, target.triple):
        raise TargetError(
            f"-mcpu={target.mcpu}: LLVM knows no such processor for {target.triple} "
            "(e.g. znver3, znver4, skylake-avx512, icelake-server, sapphirerapids)"
        )
