//===- kiln.cpp - The kiln command-line driver ----------------------------===//

#include "compiler/driver/Commands.h"

#include <cstdio>
#include <cstring>

using namespace kiln::driver;

static const char *kUsage =
    "usage: kiln <command> [options]\n"
    "\n"
    "commands:\n"
    "  compile MODEL.onnx -o MODEL.so [--target NAME] [--cpu CPU]\n"
    "          [--features +f,-g] [-O0..3] [--header FILE] [--dump-ir]\n"
    "          [--emit-asm FILE] [--layout nchw|nhwc]\n"
    "          [--codegen-threads N] [--schedule KEY=N,...]\n"
    "                       compile to a shared library and C header\n"
    "  run MODEL.so --input FILE... [--output FILE...]\n"
    "                       run a compiled model on .npy/.pb tensors\n"
    "  import MODEL.onnx    print the kiln.graph IR of a model\n"
    "  inspect FILE         describe a model library or an ONNX model\n"
    "  ops                  list the ONNX op types kiln compiles\n"
    "  targets              list the code-generation targets\n";

int kiln::driver::fail(const std::string &message) {
  std::fprintf(stderr, "kiln: error: %s\n", message.c_str());
  return 1;
}

int main(int argc, char **argv) {
  if (argc < 2 || !std::strcmp(argv[1], "--help") ||
      !std::strcmp(argv[1], "-h")) {
    std::fputs(kUsage, argc < 2 ? stderr : stdout);
    return argc < 2 ? 1 : 0;
  }
  std::string cmd = argv[1];
  Args args(argv + 2, argv + argc);
  for (const std::string &a : args)
    if (a == "--help" || a == "-h") {
      std::fputs(kUsage, stdout);
      return 0;
    }
  if (cmd == "compile")
    return runCompile(args);
  if (cmd == "run")
    return runRun(args);
  if (cmd == "import")
    return runImport(args);
  if (cmd == "inspect")
    return runInspect(args);
  if (cmd == "ops")
    return runOps(args);
  if (cmd == "targets")
    return runTargets(args);
  std::fputs(kUsage, stderr);
  return fail("unknown command '" + cmd + "'");
}
