# -*- Python -*-
# lit configuration of the sympow IR and tool tests.

import os

import lit.formats
from lit.llvm import llvm_config
from lit.llvm.subst import ToolSubst

config.name = "SYMPOW"
config.test_format = lit.formats.ShTest(not llvm_config.use_lit_shell)
config.suffixes = [".mlir", ".test"]
config.test_source_root = os.path.dirname(__file__)
config.test_exec_root = os.path.join(config.sympow_obj_root, "test")
# Folders with C++/Python tests run by ctest, not lit.
config.excludes = ["Reference", "Unit", "Fuzz", "CMakeLists.txt", "lit.cfg.py"]

config.substitutions.append(("%PATH%", config.environment["PATH"]))
config.substitutions.append(("%python", config.python_executable))

llvm_config.with_system_environment(["HOME", "INCLUDE", "LIB", "TMP", "TEMP",
                                     # the sanitizer build (scripts/sanitize.sh)
                                     "ASAN_OPTIONS", "UBSAN_OPTIONS",
                                     "LSAN_OPTIONS"])
llvm_config.use_default_substitutions()

tool_dirs = [config.sympow_tools_dir, config.llvm_tools_dir]
tools = ["sympow-opt"]
llvm_config.add_tool_substitutions(tools, tool_dirs)
llvm_config.with_environment("PATH", config.llvm_tools_dir, append_path=True)
llvm_config.with_environment("PATH", config.sympow_tools_dir, append_path=True)
