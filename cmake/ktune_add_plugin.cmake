# SPDX-License-Identifier: Apache-2.0
# ktune_add_plugin(NAME SOURCES... [LIBS libraries...])
#
# Builds a ktune kernel plugin: a loadable module NAME.so (no "lib" prefix)
# that ktune opens with dlopen. The one definition of the rule: ktune's own
# build includes this file from plugins/CMakeLists.txt for the built-in
# plugins, and an installed ktune's CMake package (find_package(ktune))
# includes its installed copy, so a plugin built out of tree gets exactly
# the flags of the built-in ones:
#
#  - the shared CUDA runtime (CUDA_RUNTIME_LIBRARY Shared, CUDA::cudart):
#    one runtime per process, shared with ktune, so streams, errors and
#    kernel attributes mean the same on both sides of the ABI;
#  - C++20 for nvcc (the descriptors use designated initialisers). CMake
#    3.25 has no CUDA_STANDARD value for nvcc's C++20, so -std=c++20 is
#    passed directly and the target's CUDA_STANDARD is cleared, so that a
#    project-wide CMAKE_CUDA_STANDARD cannot add a second, older -std;
#  - hidden visibility: the only exported symbol is ktune_plugin_entry
#    (KT_PLUGIN_EXPORT marks it default);
#  - the plugin header <ktune/plugin.h> through the target ktune::plugin_api;
#  - CUDA architectures: CMAKE_CUDA_ARCHITECTURES when the project or the
#    user sets it, else those the installed ktune was built for
#    (KTUNE_CUDA_ARCHITECTURES from find_package(ktune)), else 90 (H100/H200)
#    in ktune's own tree; never the compiler's default
#    (sm_52 or sm_75, which a Hopper GPU would run only by JIT-compiling
#    the embedded PTX at load time);
#  - LIBS: extra libraries the plugin links (linked PRIVATE).
#
# Read when called, both optional:
#   KTUNE_PLUGIN_OUTPUT_DIR   folder the module is written to (default: the
#                             current binary folder)
#   KTUNE_PLUGIN_INSTALL_DIR  when set, `cmake --install` puts the module
#                             there (relative to the install prefix, or
#                             absolute)
#
# Needs CUDA enabled in the calling project (project(x LANGUAGES CUDA)) and
# the target ktune::plugin_api (defined by plugins/CMakeLists.txt in ktune's
# build, by ktuneTargets.cmake in the package).
include_guard(GLOBAL)

if(NOT TARGET CUDA::cudart)
  find_package(CUDAToolkit REQUIRED)
endif()

# The architectures a plugin is built for, or "" to keep the target's own
# (initialised from CMAKE_CUDA_ARCHITECTURES). CMake 3.25 fills
# CMAKE_CUDA_ARCHITECTURES itself with the compiler's default when nobody
# sets it, so "set by nobody" is recognised by how the cache entry was made:
# CMake's detection writes it with the help text "CUDA architectures"; a -D
# on the command line has other help text; a project's set() before
# project() makes a normal variable and no cache entry. The first decision
# is remembered (with the value it saw) so that a later edit of the cache
# entry counts as the user's choice. The CUDAARCHS environment variable,
# which CMake also copies into the cache, counts as the user's.
function(_ktune_plugin_architectures out)
  set(${out} "" PARENT_SCOPE)
  if(NOT DEFINED CACHE{CMAKE_CUDA_ARCHITECTURES})
    return() # a normal variable only: the project's choice
  endif()
  if(NOT "${CMAKE_CUDA_ARCHITECTURES}" STREQUAL "$CACHE{CMAKE_CUDA_ARCHITECTURES}")
    return() # a normal variable shadows the cache entry: the project's choice
  endif()
  if(NOT DEFINED CACHE{_KTUNE_DETECTED_CUDA_ARCHITECTURES})
    get_property(help CACHE CMAKE_CUDA_ARCHITECTURES PROPERTY HELPSTRING)
    if(help STREQUAL "CUDA architectures" AND "$ENV{CUDAARCHS}" STREQUAL "")
      set(detected "$CACHE{CMAKE_CUDA_ARCHITECTURES}")
    else()
      set(detected "")
    endif()
    set(_KTUNE_DETECTED_CUDA_ARCHITECTURES "${detected}" CACHE INTERNAL
        "CMAKE_CUDA_ARCHITECTURES as CMake's detection left it (empty: set by the user)")
  endif()
  if(NOT "$CACHE{_KTUNE_DETECTED_CUDA_ARCHITECTURES}" STREQUAL ""
     AND "$CACHE{_KTUNE_DETECTED_CUDA_ARCHITECTURES}" STREQUAL "$CACHE{CMAKE_CUDA_ARCHITECTURES}")
    if(KTUNE_CUDA_ARCHITECTURES)
      set(${out} "${KTUNE_CUDA_ARCHITECTURES}" PARENT_SCOPE)
    else()
      set(${out} 90 PARENT_SCOPE)
    endif()
  endif()
endfunction()

function(ktune_add_plugin name)
  cmake_parse_arguments(P "" "" "LIBS" ${ARGN})
  if(NOT P_UNPARSED_ARGUMENTS)
    message(FATAL_ERROR "ktune_add_plugin(${name}): no source files; "
                        "expected ktune_add_plugin(${name} ${name}.cu)")
  endif()
  get_property(languages GLOBAL PROPERTY ENABLED_LANGUAGES)
  if(NOT "CUDA" IN_LIST languages)
    message(FATAL_ERROR "ktune_add_plugin(${name}): CUDA is not enabled in "
                        "this project; declare it first: "
                        "project(<name> LANGUAGES CUDA) or enable_language(CUDA)")
  endif()
  if(NOT TARGET ktune::plugin_api)
    message(FATAL_ERROR "ktune_add_plugin(${name}): the target "
                        "ktune::plugin_api is missing; use find_package(ktune) "
                        "rather than including ktune_add_plugin.cmake alone")
  endif()

  add_library(${name} MODULE ${P_UNPARSED_ARGUMENTS})
  target_link_libraries(${name} PRIVATE ktune::plugin_api CUDA::cudart
                                        ${P_LIBS})
  target_compile_options(${name} PRIVATE
                         "$<$<COMPILE_LANGUAGE:CUDA>:-std=c++20>")
  set_property(TARGET ${name} PROPERTY CUDA_STANDARD)
  set_target_properties(${name} PROPERTIES
    PREFIX ""
    CUDA_RUNTIME_LIBRARY Shared
    CUDA_VISIBILITY_PRESET hidden
    C_VISIBILITY_PRESET hidden
    CXX_VISIBILITY_PRESET hidden)
  _ktune_plugin_architectures(architectures)
  if(architectures)
    set_property(TARGET ${name} PROPERTY CUDA_ARCHITECTURES ${architectures})
  endif()
  if(DEFINED KTUNE_PLUGIN_OUTPUT_DIR)
    set_property(TARGET ${name} PROPERTY
                 LIBRARY_OUTPUT_DIRECTORY ${KTUNE_PLUGIN_OUTPUT_DIR})
  endif()
  if(DEFINED KTUNE_PLUGIN_INSTALL_DIR)
    install(TARGETS ${name} LIBRARY DESTINATION ${KTUNE_PLUGIN_INSTALL_DIR})
  endif()
endfunction()
