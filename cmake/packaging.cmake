# `cmake --install` and the Debian package (CPack, `cpack` in build/): the binaries in bin/, the
# reference scripts that `stagebench peer` runs in share/stagebench/, the docs in
# share/doc/stagebench/ (docs/install.md). layout/ finds these folders at run time from the same
# GNUInstallDirs variables.
install(TARGETS stagebench RUNTIME DESTINATION ${CMAKE_INSTALL_BINDIR})
if(STAGEBENCH_GUI)
  install(TARGETS stagebench-viewer RUNTIME DESTINATION ${CMAKE_INSTALL_BINDIR})
endif()
install(DIRECTORY ${PROJECT_SOURCE_DIR}/scripts/reference/
        DESTINATION ${CMAKE_INSTALL_DATADIR}/stagebench/scripts/reference
        FILES_MATCHING PATTERN "*.py" PATTERN "__pycache__" EXCLUDE PATTERN "test_*.py" EXCLUDE)
# README.md beside a docs/ folder, as in the repository, so that its links resolve.
install(FILES ${PROJECT_SOURCE_DIR}/README.md DESTINATION ${CMAKE_INSTALL_DOCDIR})
install(DIRECTORY ${PROJECT_SOURCE_DIR}/docs/ DESTINATION ${CMAKE_INSTALL_DOCDIR}/docs)

set(CPACK_GENERATOR DEB)
set(CPACK_PACKAGE_NAME stagebench)
set(CPACK_PACKAGE_VERSION ${PROJECT_VERSION})
set(CPACK_PACKAGE_DESCRIPTION_SUMMARY
    "Benchmarks documented optimization ladders of ML models on the CPU and OpenCL devices")
set(CPACK_PACKAGE_CONTACT "stagebench developers")
set(CPACK_DEBIAN_PACKAGE_SECTION science)
set(CPACK_DEBIAN_FILE_NAME DEB-DEFAULT)  # stagebench_0.1.0_amd64.deb
if(STAGEBENCH_NATIVE)
  # -march=native: the package runs on CPUs with the build machine's instruction set only.
  set(CPACK_DEBIAN_PACKAGE_DESCRIPTION "${CPACK_PACKAGE_DESCRIPTION_SUMMARY}
 Built with -march=native for the build machine's CPU; configure with
 -DSTAGEBENCH_NATIVE=OFF for a package that runs on any x86-64 CPU.")
endif()
# The Depends line comes from what the binaries really link (dpkg-shlibdeps, in dpkg-dev); the
# list below is for a build machine without it and names Debian 12's packages.
find_program(SB_DPKG_SHLIBDEPS dpkg-shlibdeps)
if(SB_DPKG_SHLIBDEPS)
  set(CPACK_DEBIAN_PACKAGE_SHLIBDEPS ON)
else()
  set(sb_depends libc6 libstdc++6 libgcc-s1 libgomp1 libpcre2-8-0)
  if(STAGEBENCH_OPENCL)
    list(APPEND sb_depends ocl-icd-libopencl1 libclblast1)
  endif()
  if(STAGEBENCH_PAPI)
    list(APPEND sb_depends libpapi7.0 libpfm4)
  endif()
  if(STAGEBENCH_DNNL)
    list(APPEND sb_depends libdnnl2)
  endif()
  if(STAGEBENCH_GUI)
    list(APPEND sb_depends libqt5core5a libqt5gui5 libqt5widgets5 libqt5charts5)
    get_target_property(sb_viewer_links sb_viewer_widgets LINK_LIBRARIES)
    if("Qt5::Svg" IN_LIST sb_viewer_links)
      list(APPEND sb_depends libqt5svg5)
    endif()
  endif()
  list(JOIN sb_depends ", " CPACK_DEBIAN_PACKAGE_DEPENDS)
endif()
# The OpenCL backend needs a driver behind the ICD loader (PoCL on a machine without a GPU);
# `peer` needs Python with PyTorch, which Debian does not package.
if(STAGEBENCH_OPENCL)
  set(CPACK_DEBIAN_PACKAGE_RECOMMENDS "pocl-opencl-icd | opencl-icd")
endif()
set(CPACK_DEBIAN_PACKAGE_SUGGESTS python3)
include(CPack)
