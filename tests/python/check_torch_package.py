#!/usr/bin/env python3
"""CI check of python/gpulab_torch without PyTorch or a GPU: files, syntax, and that the pieces agree.

Usage: check_torch_package.py REPO_ROOT. Prints one line per failed check and exits 1, else 0.
What needs torch and a GPU (building, running, opcheck) is bench/torch_check.sh on the GPU machine.
"""
import re
import sys
from pathlib import Path

root = Path(sys.argv[1] if len(sys.argv) > 1 else ".").resolve()
pkg = root / "python" / "gpulab_torch"
failures = []


def fail(msg):
    failures.append(msg)
    print(f"check_torch_package: {msg}", file=sys.stderr)


required = [
    pkg / "setup.py", pkg / "pyproject.toml", pkg / "csrc" / "ops.cpp",
    pkg / "csrc" / "ops_cuda.cu", pkg / "gpulab_torch" / "__init__.py",
    pkg / "gpulab_torch" / "ops.py", pkg / "gpulab_torch" / "_library.py",
    pkg / "tests" / "test_ops.py", root / "python" / "examples" / "load_jit.py",
    root / "python" / "examples" / "load_inline_add2.py", root / "bench" / "torch_ops.py",
    root / "bench" / "torch_check.sh",
]
for p in required:
    if not p.is_file():
        fail(f"{p.relative_to(root)} is missing")


def sources(folder, pattern):
    """The files of a checkout: not what a local build left in build/ folders."""
    return sorted(p for p in folder.rglob(pattern)
                  if p.is_file() and "build" not in p.relative_to(root).parts)


# Every Python file compiles (a syntax check; nothing is imported, so torch is not needed).
py_files = sources(root / "python", "*.py") + sorted((root / "bench").glob("*.py"))
for p in py_files:
    try:
        compile(p.read_text(), str(p), "exec")  # writes no .pyc into the source tree
    except SyntaxError as e:
        fail(f"{p.relative_to(root)}:{e.lineno}: does not compile: {e.msg}")

if all(p.is_file() for p in required):
    ops_cpp = (pkg / "csrc" / "ops.cpp").read_text()
    ops_cu = (pkg / "csrc" / "ops_cuda.cu").read_text()
    ops_py = (pkg / "gpulab_torch" / "ops.py").read_text()
    declared = re.findall(r'm\.def\("(\w+)\(', ops_cpp)
    if not declared:
        fail("csrc/ops.cpp declares no operator with m.def")
    for block in ("CUDA", "CPU"):
        m = re.search(r"TORCH_LIBRARY_IMPL\(gpulab, " + block + r", m\) \{(.*?)\n\}", ops_cu, re.S)
        implemented = re.findall(r'm\.impl\("(\w+)"', m.group(1)) if m else []
        for op in declared:
            if op not in implemented:
                fail(f"gpulab::{op} is declared in ops.cpp but has no {block} m.impl in ops_cuda.cu")
    faked = re.findall(r'register_fake\("gpulab::(\w+)"\)', ops_py)
    for op in declared:
        if op not in faked:
            fail(f"gpulab::{op} has no register_fake in ops.py: torch.compile could not trace it")
    # The kernels come from src/kernels, the CLI's own headers; none is copied into python/.
    for inc in re.findall(r'#include "(kernels/[\w.]+)"', ops_cu):
        if not (root / "src" / inc).is_file():
            fail(f"ops_cuda.cu includes {inc}, which is not in src/")
    for p in sources(root / "python", "*"):
        if p.suffix in (".cu", ".cuh", ".cpp", ".h", ".py"):
            if "__global__" in p.read_text():
                fail(f"{p.relative_to(root)} defines a kernel: kernels belong in src/kernels")
    setup = (pkg / "setup.py").read_text()
    if "CUDAExtension(" not in setup or "BuildExtension" not in setup:
        fail("setup.py must build with CUDAExtension and BuildExtension (a .cu needs nvcc)")
    inline = (root / "python" / "examples" / "load_inline_add2.py").read_text()
    if re.search(r"cpp_sources\s*=\s*(''|\"\")", inline):
        fail("load_inline_add2.py passes an empty cpp_sources: the binding cannot see the function")

print(f"check_torch_package: {len(py_files)} Python files compiled, "
      f"{'all checks passed' if not failures else f'{len(failures)} failure(s)'}")
sys.exit(1 if failures else 0)
