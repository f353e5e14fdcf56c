#!/bin/bash
# SPDX-License-Identifier: Apache-2.0
# The ktune binary does not depend on MPI at run time, whether or not it was
# built with Open MPI's development files: neither its NEEDED list
# (readelf -d) nor what the loader resolves for it (ldd) names libmpi. Where
# MPI was found, --mpi is the module ktune_mpi.so next to the binary, and
# that module (only) needs libmpi.
ktune=${1:?usage: test_no_libmpi.sh KTUNE}
fail=0
needed=$(readelf -d "$ktune" | awk '/\(NEEDED\)/ {print $NF}')
[ -n "$needed" ] || { echo "FAIL: no NEEDED entries read from $ktune"; exit 1; }
if grep -qi 'mpi' <<<"$needed"; then
    echo "FAIL: $ktune needs MPI at run time:"
    echo "$needed"
    fail=1
fi
if ldd "$ktune" | grep -qi 'libmpi'; then
    echo "FAIL: ldd $ktune resolves libmpi:"
    ldd "$ktune" | grep -i mpi
    fail=1
fi
module=$(dirname "$ktune")/ktune_mpi.so
if [ -e "$module" ]; then
    readelf -d "$module" | grep -q 'NEEDED.*libmpi' ||
        { echo "FAIL: $module does not need libmpi"; fail=1; }
    echo "module: $module"
else
    echo "built without MPI: no module"
fi
echo "needed: $(tr '\n' ' ' <<<"$needed")"
exit $fail
