VENV := .venv
PY := $(VENV)/bin/python
STAMP := $(VENV)/.installed

.PHONY: install native clean-native test lint format bench bench-service gpu-check golden demo clean

install: $(STAMP) native

# The modules on the tuner's per-candidate path (loop IR nodes, schedule replay, lowering,
# simplification, features: `[tool.autotune] native` in pyproject.toml), compiled by mypyc
# into C extensions beside their sources, which Python then imports instead (about 1.8x
# the candidates per second). Rebuilt whenever a source under ir/ or tuner/ changes; where
# mypyc fails (no C compiler), the sources run as they are.
NATIVE_STAMP := build/native.stamp

native: $(NATIVE_STAMP)

$(NATIVE_STAMP): $(STAMP) $(shell find ir tuner -name '*.py')
	@mkdir -p build
	@$(MAKE) --no-print-directory clean-native
	@if $(PY) -m ir.native > build/native.log 2>&1; then \
		tail -n 1 build/native.log; \
	else \
		tail -n 20 build/native.log; \
		echo "mypyc failed (log: build/native.log): the modules run as Python sources"; \
		$(MAKE) --no-print-directory clean-native; \
	fi
	@touch $@

clean-native:
	find ir tuner -name '*.so' -delete
	rm -f $(NATIVE_STAMP)

# Reinstall only when pyproject.toml changes (or the venv is missing).
$(STAMP): pyproject.toml
	test -x $(PY) || python3 -m venv $(VENV)
	$(VENV)/bin/pip install -e '.[dev]'
	touch $(STAMP)

test: install
	$(PY) -m pytest -q

lint: install
	$(VENV)/bin/ruff check .
	$(VENV)/bin/ruff format --check .
	$(VENV)/bin/mypy
	$(VENV)/bin/lint-imports

format: install
	$(VENV)/bin/ruff check --fix .
	$(VENV)/bin/ruff format .

bench: install
	$(PY) bench/parallel_overhead.py
	$(PY) bench/kernels.py
	$(PY) bench/models.py
	$(PY) bench/search_overhead.py
	$(PY) bench/tune.py --trials 64 256
	$(PY) bench/tuning_curves.py --trials 256 --keep-records build/curve-records
	$(PY) bench/cost_model_accuracy.py build/curve-records
	$(PY) bench/record_fidelity.py build/curve-records

# Service under load: 8 simulated workers + 50 polling clients, on SQLite and PostgreSQL.
bench-service: install
	$(PY) bench/service_load.py --duration 60

# On a machine with an NVIDIA GPU and the CUDA toolkit: the CUDA tests on the device, then
# every default and sampled GPU schedule checked and timed next to PyTorch (if installed),
# then the light models compiled for the GPU, run and timed.
GPU_TESTS := tests/codegen/cuda tests/codegen/aot/test_cuda_artifact.py \
	tests/workers/test_device.py tests/service/test_cli_cuda.py tests/tuner/space/test_gpu_space.py \
	tests/ir/schedule
gpu-check: install
	$(VENV)/bin/pip install -e '.[gpu]'
	$(PY) -m pytest -q $(GPU_TESTS)
	$(PY) bench/gpu_check.py
	$(PY) bench/gpu_models.py

golden: install
	if [ -f tests/golden/regenerate.py ]; then $(PY) -m tests.golden.regenerate; \
	else echo "no golden corpus yet (tests/golden/regenerate.py is missing)"; fi

demo: install
	$(VENV)/bin/autotune demo

clean: clean-native
	rm -rf $(VENV) build dist *.egg-info .pytest_cache .mypy_cache .ruff_cache .hypothesis
	find . -name __pycache__ -type d -prune -exec rm -rf {} +
