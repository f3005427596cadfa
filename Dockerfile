# Images for docker-compose.yml: `app` runs the service or a CPU worker, `gpu-worker` a
# worker with the CUDA toolkit and the gpu extra (pycuda).
#
#   docker build --target app -t autotune .
#   docker build --target gpu-worker -t autotune-gpu .

# --- the service and CPU workers -----------------------------------------------------------
FROM python:3.11-slim-bookworm AS app
ENV PYTHONDONTWRITEBYTECODE=1 \
    PYTHONUNBUFFERED=1 \
    PIP_NO_CACHE_DIR=1 \
    PIP_DISABLE_PIP_VERSION_CHECK=1
# libgomp: parallel loops of JIT-compiled kernels; gcc + libc headers: linking AOT artifacts.
RUN apt-get update \
    && apt-get install -y --no-install-recommends libgomp1 gcc libc6-dev \
    && rm -rf /var/lib/apt/lists/*
WORKDIR /app
COPY pyproject.toml README.md ./
COPY ir ir
COPY codegen codegen
COPY tuner tuner
COPY workers workers
COPY service service
COPY migrations migrations
# Editable, so the service finds the top-level migrations/ next to its sources in /app.
# Then the tuner's per-candidate modules are compiled with mypyc (ir/native.py; the
# sources run where that fails), and mypy, needed only to build them, is removed.
RUN pip install -e . \
    && pip install "mypy>=1.10" setuptools \
    && (python -m ir.native || echo "mypyc failed: the Python sources run") \
    && pip uninstall -y mypy \
    && useradd --create-home --uid 10001 autotune \
    && mkdir /data && chown autotune /data
USER autotune
EXPOSE 8000
CMD ["autotune", "serve", "--host", "0.0.0.0", "--port", "8000", "--data-dir", "/data"]

# --- GPU workers ---------------------------------------------------------------------------
FROM nvidia/cuda:12.6.3-devel-ubuntu24.04 AS gpu-worker
ENV PYTHONDONTWRITEBYTECODE=1 \
    PYTHONUNBUFFERED=1 \
    PIP_NO_CACHE_DIR=1 \
    PIP_DISABLE_PIP_VERSION_CHECK=1 \
    PATH=/opt/venv/bin:$PATH
RUN apt-get update \
    && apt-get install -y --no-install-recommends python3 python3-venv python3-dev libgomp1 gcc \
    && rm -rf /var/lib/apt/lists/* \
    && python3 -m venv /opt/venv
WORKDIR /app
COPY pyproject.toml README.md ./
COPY ir ir
COPY codegen codegen
COPY tuner tuner
COPY workers workers
COPY service service
COPY migrations migrations
RUN pip install -e '.[gpu]' \
    && pip install "mypy>=1.10" setuptools \
    && (python -m ir.native || echo "mypyc failed: the Python sources run") \
    && pip uninstall -y mypy \
    && useradd --create-home --uid 10001 autotune
USER autotune
CMD ["autotune", "worker", "--device", "cuda:0"]
