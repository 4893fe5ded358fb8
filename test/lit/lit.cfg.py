# lit configuration for kiln. Tests mirror the source tree.
import os

import lit.formats
from lit.llvm import llvm_config

config.name = "kiln"
config.test_format = lit.formats.ShTest(not llvm_config.use_lit_shell)
config.suffixes = [".mlir", ".test"]
config.excludes = ["Inputs", "CMakeLists.txt", "lit.cfg.py", "lit.site.cfg.py"]
config.test_source_root = os.path.dirname(__file__)
config.test_exec_root = config.lit_test_root

llvm_config.with_system_environment(["HOME", "TMPDIR"])
llvm_config.use_default_substitutions()
llvm_config.with_environment("PATH", config.kiln_tools_dir, append_path=True)
llvm_config.with_environment("PATH", config.llvm_tools_dir, append_path=True)

tools = ["kiln-opt", "kiln"]
llvm_config.add_tool_substitutions(tools, [config.kiln_tools_dir])
config.substitutions.append(("%kiln_src", config.kiln_src_root))
config.substitutions.append(("%kiln_lib", os.path.join(config.kiln_obj_root, "lib")))
config.substitutions.append(("%kiln_obj", config.kiln_obj_root))
config.substitutions.append(("%python", "/usr/bin/python3"))

# Emulated runs of cross-compiled code (autotune/emulated-runner.test).
import shutil

if shutil.which("qemu-aarch64-static") and os.path.exists(
        os.path.join(config.kiln_obj_root, "aarch64", "kiln_measure")):
    config.available_features.add("qemu-aarch64")
# kiln_measure --cold 0 flushes caches with user-mode instructions here.
import platform

if platform.machine() in ("x86_64", "aarch64"):
    config.available_features.add("host-cache-flush")
if shutil.which("script"):
    config.available_features.add("script")
# The tools' PATH, for tests that put stand-ins in front of it.
config.substitutions.append(("%path", config.environment.get("PATH", "")))
