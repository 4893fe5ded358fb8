# lit configuration for the tests that live beside each target, in
# lowering/targets/<name>/test/. Run by ctest as `lit_targets`, or by hand:
#   lit -sv --param kiln_build=build lowering/targets
import os
import shutil

import lit.formats

config.name = "kiln-targets"
config.test_format = lit.formats.ShTest(True)
config.suffixes = [".test", ".mlir"]
config.excludes = ["Inputs", "CMakeLists.txt", "lit.cfg.py"]
config.test_source_root = os.path.dirname(os.path.abspath(__file__))
src_root = os.path.abspath(os.path.join(config.test_source_root, "..", ".."))
build = os.path.abspath(lit_config.params.get("kiln_build", os.path.join(src_root, "build")))
config.test_exec_root = os.path.join(build, "lowering", "targets")

config.environment["PATH"] = os.pathsep.join(
    [os.path.join(build, "bin"), "/usr/lib/llvm-22/bin", os.environ.get("PATH", "")])
for var in ("HOME", "TMPDIR"):
    if var in os.environ:
        config.environment[var] = os.environ[var]
config.substitutions.append(("%kiln_src", src_root))
config.substitutions.append(("%kiln_build", build))
config.substitutions.append(("%python", "/usr/bin/python3"))

# `REQUIRES: qemu-<arch>`: qemu-user, the Debian sysroot and the cross-built
# runner (build/<arch>/kiln_run_npy) are all present.
for arch in sorted(os.listdir(config.test_source_root)):
    qemu = shutil.which(f"qemu-{arch}") or shutil.which(f"qemu-{arch}-static")
    if (qemu and os.path.isdir(f"/usr/{arch}-linux-gnu")
            and os.path.isfile(os.path.join(build, arch, "kiln_run_npy"))):
        config.available_features.add(f"qemu-{arch}")

# CPU features of this machine, for tests of libraries it cannot run.
try:
    with open("/proc/cpuinfo") as f:
        flags = next((l.split(":", 1)[1].split() for l in f if l.startswith("flags")), [])
except OSError:
    flags = []
if flags and "amx_tile" not in flags and "avx512_fp16" not in flags:
    config.available_features.add("host-lacks-amx-avx512fp16")

# CUDA's assembler, for the GPU targets' PTX (the toolkit, not a GPU).
ptxas = shutil.which("ptxas") or next(
    (p for p in ("/usr/local/cuda/bin/ptxas", "/usr/lib/cuda/bin/ptxas") if os.path.isfile(p)),
    None)
if ptxas:
    config.available_features.add("ptxas")
    config.substitutions.append(("%ptxas", ptxas))
# kiln_rt's CUDA launcher against a stand-in driver (test/unit/runtime/cuda).
config.substitutions.append(("%fake_cuda", os.path.join(build, "lib", "libkiln_fake_cuda.so")))
