#!/usr/bin/env python3
# The layers of gpulab's code, checked on the include graph: every #include "folder/..." of a file
# under src/ or apps/ must name its own folder or one below it in LAYERS, and no two modules (a
# .hpp with its .cpp) may include each other, directly or around a circle. Run by the build (the
# gpulab_layers target) and by ctest (layers); prints one line per wrong include and exits 1.
#
# usage: check_layers.py SOURCE_DIR [STAMP_FILE]
import os
import re
import sys

# Lowest first. A folder may include its own headers and those of the folders before it.
LAYERS = [
    "core",      # errors, options, text, i18n, processes: depends on nothing of gpulab's
    "calc",      # pure maths, no I/O
    "profile",   # the profiler's counting (pure; the emulator gathers with it) and its report
    "simt",      # the CPU emulator of the SIMT model
    "kernels",   # the kernels, plain CUDA C++ (.cuh)
    "cuda",      # CUDA runtime glue (only with nvcc)
    "backend",   # the Backend interface and its two implementations
    "run",       # the run engine: build, child, report; the emulator's runtime and kit headers
    "exercise",  # exercises: catalog, check (on the run engine), drawing
    "inspect",   # inspect's engine: nvcc, resource usage, PTX/SASS listings
    "commands",  # one pair of files per subcommand
    "apps",      # main(): wiring only
]
RANK = {name: i for i, name in enumerate(LAYERS)}
# Folders whose modules are written as one unit and may include each other: the emulator's
# scheduler, race checker, device API and fiber stacks each use the others' headers. Circles
# between folders, and into or out of these, are still errors.
ONE_UNIT = {"simt"}
INCLUDE = re.compile(r'^\s*#\s*include\s*"([^"]+)"', re.M)
SOURCE_ENDINGS = (".hpp", ".cpp", ".h", ".cu", ".cuh", ".inl")


def folder_of(rel):
    parts = rel.split("/")
    return parts[1] if parts[0] == "src" else parts[0]


def module_of(path):
    """A .hpp with its .cpp is one module; so is NAME_PART with NAME when NAME is a module of the
    same folder (commands/twonorm_ladder is a part of commands/twonorm: one command, two files)."""
    folder, name = os.path.split(path)
    while "_" in name:
        head = name.rsplit("_", 1)[0]
        if any(os.path.exists(os.path.join(ROOT, folder, head + e)) for e in (".hpp", ".cpp")):
            name = head
        else:
            break
    return os.path.join(folder, name)


ROOT = "."


def main():
    global ROOT
    root = ROOT = os.path.abspath(sys.argv[1])
    files = []
    for top in ("src", "apps"):
        for d, _, names in os.walk(os.path.join(root, top)):
            files += [os.path.relpath(os.path.join(d, n), root) for n in names
                      if n.endswith(SOURCE_ENDINGS)]
    problems = []
    modules = {}  # "src/commands/help" -> set of modules it includes
    for rel in sorted(files):
        folder = folder_of(rel)
        if folder not in RANK:
            problems.append(f"{rel}: folder '{folder}' is not in the layer list (scripts/check_layers.py)")
            continue
        with open(os.path.join(root, rel), encoding="utf-8", errors="replace") as f:
            text = f.read()
        module = module_of(os.path.splitext(rel)[0])
        deps = modules.setdefault(module, set())
        for line_no, m in ((text.count("\n", 0, m.start()) + 1, m) for m in INCLUDE.finditer(text)):
            name = m.group(1)
            target = os.path.normpath(os.path.join("src", name))
            if not os.path.exists(os.path.join(root, target)):
                continue  # a kit header (cuda_runtime.h), a generated or a local file
            to = folder_of(target)
            if to in RANK and RANK[to] > RANK[folder]:
                problems.append(f"{rel}:{line_no}: includes {name}: '{folder}' is below '{to}' "
                                f"(layers, lowest first: {', '.join(LAYERS)})")
            dep = module_of(os.path.splitext(target)[0])
            if dep != module and not (folder == to and folder in ONE_UNIT):
                deps.add(dep)
    # Circles between modules: a depth-first search that reports each circle once.
    state, stack, seen = {}, [], set()

    def visit(m):
        state[m] = 1
        stack.append(m)
        for d in sorted(modules.get(m, ())):
            if state.get(d) == 1:
                circle = stack[stack.index(d):] + [d]
                key = frozenset(circle)
                if key not in seen:
                    seen.add(key)
                    problems.append("include circle: " + " -> ".join(circle))
            elif state.get(d) is None and d in modules:
                visit(d)
        stack.pop()
        state[m] = 2

    for m in sorted(modules):
        if state.get(m) is None:
            visit(m)
    for p in problems:
        print(f"gpulab layers: {p}", file=sys.stderr)
    if problems:
        return 1
    if len(sys.argv) > 2:
        with open(sys.argv[2], "w") as f:
            f.write("ok\n")
    return 0


if __name__ == "__main__":
    sys.exit(main())
