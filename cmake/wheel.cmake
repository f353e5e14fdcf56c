# SPDX-License-Identifier: Apache-2.0
# The Python wheel (pyproject.toml, scikit-build-core sets SKBUILD): the
# install tree goes into the package as ktune/_native (bin, lib, libexec),
# and must run on a host that has only the CUDA driver and toolkit
# libraries, whatever the build machine had. So every installed binary and
# library finds its neighbours through $ORIGIN-relative RUNPATHs (one list
# for all of them: bin/ and lib/ are one level below _native, libexec/ktune
# and lib/ktune/plugins two and three), then the CUDA libraries of NVIDIA's
# pip wheels (nvidia/cu13/lib beside the ktune package in site-packages),
# then the toolkit's usual folders. libjansson, which such a host lacks
# (iniparser is linked statically), is copied into lib/.
if(NOT SKBUILD)
  return()
endif()
set(KT_WHEEL_CUDA_MAJOR ${CUDAToolkit_VERSION_MAJOR})
set(KT_WHEEL_RPATH)
foreach(up "" "/.." "/../.." "/../../..")
  list(APPEND KT_WHEEL_RPATH "$ORIGIN${up}/../lib")
endforeach()
# From _native/lib (or bin) site-packages is three folders up; from
# libexec/ktune four, from lib/ktune/plugins five.
foreach(up "/../../.." "/../../../.." "/../../../../..")
  list(APPEND KT_WHEEL_RPATH "$ORIGIN${up}/nvidia/cu${KT_WHEEL_CUDA_MAJOR}/lib")
endforeach()
list(APPEND KT_WHEEL_RPATH /usr/local/cuda/lib64
     /usr/local/cuda/extras/CUPTI/lib64)
list(REMOVE_DUPLICATES KT_WHEEL_RPATH)
set(CMAKE_INSTALL_RPATH "${KT_WHEEL_RPATH}")
set(CMAKE_BUILD_WITH_INSTALL_RPATH OFF)
# No folder of the build machine's link line joins the installed RUNPATH
# (the toolkit's usual folders above are the only absolute ones).
set(CMAKE_INSTALL_RPATH_USE_LINK_PATH OFF)

# The real file behind the jansson the project links, installed under its
# SONAME so the loader finds it by the name in NEEDED.
find_library(KT_WHEEL_JANSSON NAMES jansson
  HINTS ${JANSSON_LIBRARY_DIRS} NO_CACHE)
if(KT_WHEEL_JANSSON)
  file(REAL_PATH "${KT_WHEEL_JANSSON}" KT_WHEEL_JANSSON_REAL)
  get_filename_component(KT_WHEEL_JANSSON_NAME "${KT_WHEEL_JANSSON_REAL}" NAME)
  # libjansson.so.4.14.0 -> libjansson.so.4 (its SONAME).
  string(REGEX REPLACE "^(libjansson\\.so\\.[0-9]+).*" "\\1"
         KT_WHEEL_JANSSON_SONAME "${KT_WHEEL_JANSSON_NAME}")
  install(FILES "${KT_WHEEL_JANSSON_REAL}" DESTINATION ${CMAKE_INSTALL_LIBDIR}
          RENAME "${KT_WHEEL_JANSSON_SONAME}")
endif()
