"""Loop IR to kernels: LLVM IR (llvmlite), CUDA C, JIT, AOT model artifacts, runtime loader."""
