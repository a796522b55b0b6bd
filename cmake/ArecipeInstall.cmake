# Install rules and the Debian package (docs/build.md#install).
#
#   <prefix>/bin/arecipec, arecipe-run, arecipe-sim, arecipe-load, arecipe-fmt
#   <prefix>/share/arecipe/std/            the standard library
#   <prefix>/share/arecipe/sim/            the simulator's profiles, generated
#                                          from std (tools/CMakeLists.txt)
#   <prefix>/share/arecipe/examples/       the seed recipes
#   <prefix>/share/doc/arecipe/            README.md and docs/
#
# The tree is relocatable: each tool finds its data at
# <dir of the executable>/../share/arecipe (arecipe/Support/InstallLayout.h),
# so nothing of the build machine is compiled in. The report's stylesheet
# and script are compiled into the runtime, so no asset is installed.

foreach(var CMAKE_INSTALL_BINDIR CMAKE_INSTALL_DATADIR CMAKE_INSTALL_DOCDIR)
  if(IS_ABSOLUTE ${${var}})
    message(FATAL_ERROR "arecipe: ${var} must be relative to the install prefix "
                        "(the installed tree is relocatable); got ${${var}}")
  endif()
endforeach()

# The build tree mirrors the installed layout, so the tools in build/bin find
# their data by the same rule: build/<datadir>/arecipe/std is a link to the
# source std/ (edits are seen without rebuilding).
file(RELATIVE_PATH arecipe_datadir_from_bindir
  /${CMAKE_INSTALL_BINDIR} /${CMAKE_INSTALL_DATADIR}/arecipe)
get_filename_component(arecipe_build_datadir
  ${CMAKE_BINARY_DIR}/bin/${arecipe_datadir_from_bindir} ABSOLUTE)
if(NOT IS_SYMLINK ${arecipe_build_datadir}/std)
  file(MAKE_DIRECTORY ${arecipe_build_datadir})
  file(CREATE_LINK ${PROJECT_SOURCE_DIR}/std ${arecipe_build_datadir}/std SYMBOLIC)
endif()

install(DIRECTORY ${PROJECT_SOURCE_DIR}/std/
  DESTINATION ${CMAKE_INSTALL_DATADIR}/arecipe/std)
install(DIRECTORY ${PROJECT_SOURCE_DIR}/examples/
  DESTINATION ${CMAKE_INSTALL_DATADIR}/arecipe/examples)
install(FILES ${PROJECT_SOURCE_DIR}/README.md DESTINATION ${CMAKE_INSTALL_DOCDIR})
install(DIRECTORY ${PROJECT_SOURCE_DIR}/docs/ DESTINATION ${CMAKE_INSTALL_DOCDIR}/docs)

# `cpack -G DEB` in the build directory: arecipe_<version>_<arch>.deb for
# Debian 12, installing under /usr. Its Depends are computed from the
# binaries by dpkg-shlibdeps (dpkg-dev, which build-essential pulls in);
# test/Build/package-deb.sh checks that they cover every shared library the
# binaries load.
set(CPACK_PACKAGE_NAME arecipe)
set(CPACK_PACKAGE_VENDOR "arecipe")
set(CPACK_PACKAGE_CONTACT "arecipe maintainers")
set(CPACK_PACKAGE_DESCRIPTION_SUMMARY
  "typed recipe language, compiler and runtime for LLM-serving benchmarks")
set(CPACK_PACKAGE_DESCRIPTION
  "arecipec compiles .arecipe recipes into launch plans; arecipe-run runs them \
locally or through Slurm, against real engines or the bundled engine simulator \
arecipe-sim; arecipe-load is the native load client; arecipe-fmt formats recipes.")
set(CPACK_PACKAGE_VERSION ${PROJECT_VERSION})
set(CPACK_GENERATOR DEB)
set(CPACK_PACKAGING_INSTALL_PREFIX /usr)
set(CPACK_DEBIAN_FILE_NAME DEB-DEFAULT)
set(CPACK_DEBIAN_PACKAGE_SECTION devel)
set(CPACK_DEBIAN_PACKAGE_SHLIBDEPS ON)
# Optional at run time: `--executor slurm` needs the Slurm client tools.
set(CPACK_DEBIAN_PACKAGE_SUGGESTS "slurm-client")
set(CPACK_STRIP_FILES ON)
include(CPack)
