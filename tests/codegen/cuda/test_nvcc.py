"""nvcc's cache folder and side-by-side compiles (needs nvcc, not a GPU)."""

from __future__ import annotations

from pathlib import Path

import pytest

from codegen.cuda.nvcc import cache_path, compile_source, compile_sources
from codegen.errors import CodegenError
from tests.codegen.cuda.support import require_nvcc

KERNEL = """extern "C" __global__ void scale(float* x, int n) {
  int i = blockIdx.x * blockDim.x + threadIdx.x;
  if (i < n) x[i] *= %s;
}
"""


def test_compile_source_reads_and_fills_its_cache(tmp_path: Path) -> None:
    require_nvcc()
    source = KERNEL % "2.0f"
    cubin = compile_source(source, "sm_90", "cubin", cache_dir=tmp_path)
    cached = cache_path(tmp_path, source, "sm_90", "cubin")
    assert cached.read_bytes() == cubin and list(tmp_path.iterdir()) == [cached]
    cached.write_bytes(b"from the cache")  # a second compile reads the file, runs no nvcc
    assert compile_source(source, "sm_90", "cubin", cache_dir=tmp_path) == b"from the cache"
    # Another architecture, output or source is another entry.
    assert cache_path(tmp_path, source, "sm_80", "cubin") != cached
    assert cache_path(tmp_path, source, "sm_90", "ptx") != cached
    assert cache_path(tmp_path, KERNEL % "3.0f", "sm_90", "cubin") != cached
    assert compile_source(source, "sm_90", "cubin") != b"from the cache"  # (no cache: nvcc)


def test_compile_sources_compiles_side_by_side_and_reports_each_error(tmp_path: Path) -> None:
    require_nvcc()
    good = [(KERNEL % f"{k}.0f", "sm_90") for k in range(4)]
    broken = ("__global__ void broken( {", "sm_90")
    folder = tmp_path / "cubins"  # (made by the first compile)
    errors = compile_sources([*good, broken, good[0]], folder, workers=2)
    assert set(errors) == {*good, broken}  # (each distinct pair once)
    assert all(errors[pair] is None for pair in good)
    assert isinstance(errors[broken], CodegenError) and "nvcc failed" in str(errors[broken])
    for source, arch in good:
        assert cache_path(folder, source, arch, "cubin").is_file()
    assert not cache_path(folder, *broken, "cubin").exists()
    assert not list(folder.glob("*.part"))


@pytest.mark.parametrize("output", ["ptx", "cubin"])
def test_a_failed_compile_leaves_nothing_in_the_cache(tmp_path: Path, output: str) -> None:
    require_nvcc()
    with pytest.raises(CodegenError, match="nvcc failed"):
        compile_source("not cuda", "sm_90", output, cache_dir=tmp_path)
    assert not list(tmp_path.iterdir())
