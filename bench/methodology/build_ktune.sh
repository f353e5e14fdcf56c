# SPDX-License-Identifier: Apache-2.0
# Sourced by device.sh and orders_device.sh from the tree's root on the
# device machine: puts the libraries ktune links that the machine lacks
# (.devlibs/, which tools/devlibs makes here) on the paths, for the build
# and for ktune's runs, and defines
#   kt_meth_build DIR LOG
# which builds the ktune target alone (Release, tests off) from this tree
# into DIR, logging to LOG; its status is the build's and `DIR/ktune
# --version`'s.
kt_meth_devflags=()
if [ -f .devlibs/setup.sh ]; then
    . .devlibs/setup.sh
    kt_meth_devflags=(-DKT_WITH_MPI=OFF -DKT_BUILD_TESTS=OFF
        -DCMAKE_PREFIX_PATH="$D/usr" -DCMAKE_INCLUDE_PATH="$D/usr/include"
        -DCMAKE_LIBRARY_PATH="$A")
fi
kt_meth_build() {
    (export PATH=/usr/local/cuda/bin:$PATH
     cmake -S . -B "$1" -DCMAKE_BUILD_TYPE=Release "${kt_meth_devflags[@]}" \
         >"$2" 2>&1 &&
         cmake --build "$1" --target ktune -j"$(nproc)" >>"$2" 2>&1 &&
         "$1/ktune" --version >>"$2" 2>&1)
}
