# Helpers shared by every layer.
#
# Layering is enforced by the build: a library's public headers
# (include/arecipe/<Layer>/) are on the include path of exactly the targets
# that link the library -- its own sources, and whoever links it directly or
# through a PUBLIC link. There is no global include directory, so
# `#include "arecipe/X/..."` in a target that does not link layer X fails to
# compile. docs/architecture.md has the dependency table; the
# `layering-include-graph` and `layering-build` tests check it.

# The build-tree directory that puts include/arecipe/<layer> (and nothing
# else) on a target's include path: it holds only arecipe/<layer>, a symbolic
# link to the source folder, so edited headers are seen at once.
function(arecipe_layer_include_dir layer out)
  set(dir ${CMAKE_BINARY_DIR}/layer-include/${layer})
  set(src ${PROJECT_SOURCE_DIR}/include/arecipe/${layer})
  if(EXISTS ${src} AND NOT IS_SYMLINK ${dir}/arecipe/${layer})
    file(MAKE_DIRECTORY ${dir}/arecipe)
    file(CREATE_LINK ${src} ${dir}/arecipe/${layer} SYMBOLIC)
  endif()
  set(${out} ${dir} PARENT_SCOPE)
endfunction()

# arecipe_add_library(NAME SOURCES... [PUBLIC libs...] [PRIVATE libs...])
#
# One static library per layer; the layer is the name of the folder that
# calls this (lib/Sema -> Sema), and its public headers are
# include/arecipe/<layer>/. PUBLIC: what the layer's public headers include
# (a consumer needs those headers too); PRIVATE: what only its .cpp files use.
# `LINK` is the older spelling of PUBLIC.
function(arecipe_add_library name)
  cmake_parse_arguments(ARG "" "" "LINK;PUBLIC;PRIVATE" ${ARGN})
  add_library(${name} STATIC ${ARG_UNPARSED_ARGUMENTS})
  get_filename_component(layer ${CMAKE_CURRENT_SOURCE_DIR} NAME)
  arecipe_layer_include_dir(${layer} dir)
  target_include_directories(${name} PUBLIC ${dir})
  target_link_libraries(${name} PUBLIC ${ARG_LINK} ${ARG_PUBLIC} PRIVATE ${ARG_PRIVATE})
endfunction()

# arecipe_add_tool(NAME SOURCES... [LINK libs...] [STATIC_RUNTIME] [FAST_MALLOC])
#
# A thin main, installed into <prefix>/bin (docs/build.md#install).
# FAST_MALLOC: a tool that compiles recipes many times per process links
# ARECIPE_MALLOC's allocator (ArecipeDependencies.cmake).
# STATIC_RUNTIME: a tool that loads no C++ shared library links libstdc++
# and libgcc statically, as non-PIE, for a cheaper start-up
# (docs/build.md#start-up-of-the-tools); one that does (ICU through the
# tokenizer) would carry a second libstdc++ and gain nothing.
function(arecipe_add_tool name)
  cmake_parse_arguments(ARG "STATIC_RUNTIME;FAST_MALLOC" "" "LINK" ${ARGN})
  add_executable(${name} ${ARG_UNPARSED_ARGUMENTS})
  target_link_libraries(${name} PRIVATE ${ARG_LINK})
  if(ARG_FAST_MALLOC)
    target_link_libraries(${name} PRIVATE arecipe_malloc)
  endif()
  set_target_properties(${name} PROPERTIES RUNTIME_OUTPUT_DIRECTORY ${CMAKE_BINARY_DIR}/bin)
  if(ARG_STATIC_RUNTIME AND ARECIPE_STATIC_RUNTIME_ACTIVE)
    target_link_options(${name} PRIVATE -static-libstdc++ -static-libgcc
                        -no-pie LINKER:-O1)
  endif()
  set_property(GLOBAL APPEND PROPERTY ARECIPE_TOOLS ${name})
  install(TARGETS ${name} RUNTIME DESTINATION ${CMAKE_INSTALL_BINDIR})
endfunction()

# arecipe_add_unittest(NAME SOURCES... [LINK libs...])
function(arecipe_add_unittest name)
  cmake_parse_arguments(ARG "" "" "LINK" ${ARGN})
  add_executable(${name} ${ARG_UNPARSED_ARGUMENTS})
  target_link_libraries(${name} PRIVATE ${ARG_LINK} GTest::gtest_main GTest::gmock)
  set_target_properties(${name} PROPERTIES RUNTIME_OUTPUT_DIRECTORY ${CMAKE_BINARY_DIR}/unittests)
  add_test(NAME unit/${name} COMMAND ${name})
  set_property(GLOBAL APPEND PROPERTY ARECIPE_UNITTESTS ${name})
endfunction()
