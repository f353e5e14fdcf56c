# SPDX-License-Identifier: Apache-2.0
# Writes the version header: KT_VERSION, the commit the sources are at
# (git describe, "-dirty" with local changes) and the build flags. Run at
# configure time and, as `cmake -P`, at every build (target kt_version), so
# a build folder reused across commits stamps its results with the commit
# it was built from, not the one it was configured at. configure_file
# leaves the header untouched when nothing changed: no rebuild follows.
#   cmake -DKT_SOURCE=... -DKT_HEADER_IN=... -DKT_HEADER=...
#         -DKT_VERSION=... -DKT_BUILD_FLAGS=... -P version.cmake
execute_process(
  COMMAND git describe --always --dirty --abbrev=12
  WORKING_DIRECTORY ${KT_SOURCE}
  OUTPUT_VARIABLE KT_GIT_COMMIT OUTPUT_STRIP_TRAILING_WHITESPACE
  ERROR_QUIET)
if(NOT KT_GIT_COMMIT)
  set(KT_GIT_COMMIT "unknown")
endif()
set(PROJECT_VERSION ${KT_VERSION})
configure_file(${KT_HEADER_IN} ${KT_HEADER} @ONLY)
