# Finds every third-party dependency. Each missing one stops configuration
# with the Debian package that provides it; `scripts/install-deps.sh`
# installs them all.

function(arecipe_require found what package)
  if(NOT ${found})
    message(FATAL_ERROR "arecipe: ${what} not found. Install the Debian package "
                        "'${package}' (or run scripts/install-deps.sh as root).")
  endif()
endfunction()

# LLVM 14 Support, linked statically for fast start-up (see docs/build.md).
find_package(LLVM 14 CONFIG QUIET PATHS /usr/lib/llvm-14/lib/cmake/llvm NO_DEFAULT_PATH)
arecipe_require(LLVM_FOUND "LLVM 14 (cmake config)" "llvm-14-dev")
set(ARECIPE_LLVM_TOOLS_DIR ${LLVM_TOOLS_BINARY_DIR})
find_program(ARECIPE_FILECHECK FileCheck PATHS ${LLVM_TOOLS_BINARY_DIR} NO_DEFAULT_PATH)
arecipe_require(ARECIPE_FILECHECK "FileCheck" "llvm-14-tools")
find_file(ARECIPE_LIT lit.py PATHS /usr/lib/llvm-14/build/utils/lit NO_DEFAULT_PATH)
arecipe_require(ARECIPE_LIT "lit (lit.py)" "llvm-14-tools")

add_library(arecipe_llvm INTERFACE)
target_include_directories(arecipe_llvm SYSTEM INTERFACE ${LLVM_INCLUDE_DIRS})
target_compile_definitions(arecipe_llvm INTERFACE ${LLVM_DEFINITIONS})
target_link_libraries(arecipe_llvm INTERFACE LLVMSupport)

find_package(fmt CONFIG QUIET)
arecipe_require(fmt_FOUND "fmt" "libfmt-dev")

# Start-up of the tools (docs/build.md#start-up-of-the-tools): fmt,
# libstdc++ and libgcc linked statically and the tools linked as non-PIE,
# so a short run's dynamic loader relocates ~330 symbols instead of ~2,200. Targets link
# `arecipe_fmt`, never fmt::fmt: fmt's compiled part built here
# (cmake/FmtStatic.cpp, written for fmt 9), or the shared library when the
# option is off, fmt is another version, or in a sanitizer or fuzzer build.
option(ARECIPE_STATIC_RUNTIME
  "Link fmt, libstdc++ and libgcc statically into the tools, as non-PIE" ON)
if(ARECIPE_STATIC_RUNTIME AND NOT ARECIPE_SANITIZE AND NOT ARECIPE_FUZZ
   AND fmt_VERSION VERSION_GREATER_EQUAL 9 AND fmt_VERSION VERSION_LESS 10)
  set(ARECIPE_STATIC_RUNTIME_ACTIVE ON)
  add_library(arecipe_fmt STATIC ${CMAKE_CURRENT_LIST_DIR}/FmtStatic.cpp)
  # The same include path and definitions as fmt::fmt, so every other
  # object compiles as before.
  target_include_directories(arecipe_fmt SYSTEM PUBLIC
    $<TARGET_PROPERTY:fmt::fmt,INTERFACE_INCLUDE_DIRECTORIES>)
  target_compile_definitions(arecipe_fmt PUBLIC
    $<TARGET_PROPERTY:fmt::fmt,INTERFACE_COMPILE_DEFINITIONS>)
else()
  set(ARECIPE_STATIC_RUNTIME_ACTIVE OFF)
  add_library(arecipe_fmt INTERFACE)
  target_link_libraries(arecipe_fmt INTERFACE fmt::fmt)
endif()

# The compiler's tools allocate a few thousand small values per compilation
# and free them together: mimalloc makes an in-process compilation of the
# example about a quarter cheaper than glibc's malloc (bench/README.md,
# "Compiler").
# It is linked into the tools that compile many times per process
# (arecipe_add_tool FAST_MALLOC; not arecipec, whose one compilation saves
# less than mimalloc's set-up costs at start),
# not into the libraries, and never into a sanitizer or fuzzer build, whose
# runtime replaces malloc itself. ARECIPE_MALLOC=system keeps glibc's.
set(ARECIPE_MALLOC "mimalloc" CACHE STRING
  "Allocator of the compiling tools: mimalloc or system")
set_property(CACHE ARECIPE_MALLOC PROPERTY STRINGS mimalloc system)
add_library(arecipe_malloc INTERFACE)
if(ARECIPE_MALLOC STREQUAL "mimalloc" AND NOT ARECIPE_SANITIZE AND NOT ARECIPE_FUZZ)
  find_library(ARECIPE_MIMALLOC_LIB mimalloc)
  arecipe_require(ARECIPE_MIMALLOC_LIB "mimalloc" "libmimalloc-dev")
  # Nothing calls mimalloc by name: it replaces malloc by being loaded
  # first, so a linker that drops unreferenced libraries must keep it.
  target_link_libraries(arecipe_malloc INTERFACE
    "-Wl,--push-state,--no-as-needed" ${ARECIPE_MIMALLOC_LIB} "-Wl,--pop-state")
elseif(NOT ARECIPE_MALLOC STREQUAL "system" AND NOT ARECIPE_MALLOC STREQUAL "mimalloc")
  message(FATAL_ERROR "arecipe: ARECIPE_MALLOC must be mimalloc or system, not '${ARECIPE_MALLOC}'")
endif()

find_package(nlohmann_json 3 CONFIG QUIET)
arecipe_require(nlohmann_json_FOUND "nlohmann_json" "nlohmann-json3-dev")

find_package(antlr4-runtime CONFIG QUIET)
arecipe_require(antlr4-runtime_FOUND "ANTLR4 C++ runtime" "libantlr4-runtime-dev")
find_package(Java COMPONENTS Runtime QUIET)
arecipe_require(Java_FOUND "Java runtime (for the ANTLR tool)" "default-jre-headless")
find_file(ARECIPE_ANTLR_JAR antlr4.jar PATHS /usr/share/java NO_DEFAULT_PATH)
arecipe_require(ARECIPE_ANTLR_JAR "ANTLR4 tool (antlr4.jar)" "antlr4")

find_package(CURL QUIET)
arecipe_require(CURL_FOUND "libcurl" "libcurl4-openssl-dev")

find_package(PkgConfig QUIET)
find_path(ARECIPE_EVENT_INCLUDE event2/event.h)
find_library(ARECIPE_EVENT_LIB event_core)
find_library(ARECIPE_EVENT_EXTRA_LIB event_extra)
arecipe_require(ARECIPE_EVENT_LIB "libevent" "libevent-dev")

find_package(Threads REQUIRED)

find_package(GTest CONFIG QUIET)
arecipe_require(GTest_FOUND "GoogleTest" "libgtest-dev")

if(ARECIPE_BENCH)
  find_package(benchmark CONFIG QUIET)
  arecipe_require(benchmark_FOUND "Google Benchmark" "libbenchmark-dev")
endif()

# Debian's interpreter: the python3-* packages the tests use live there.
if(EXISTS /usr/bin/python3 AND NOT Python3_EXECUTABLE)
  set(Python3_EXECUTABLE /usr/bin/python3)
endif()
find_package(Python3 COMPONENTS Interpreter QUIET)
arecipe_require(Python3_FOUND "python3 (for lit)" "python3")
