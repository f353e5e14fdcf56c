# SPDX-License-Identifier: Apache-2.0
# The records floor is below the tuner, compare and report where it is
# linked, not only in its includes: ktune_records needs no symbol that only
# they define (check_below.sh), and the check catches a library that does
# (the tuner, which stands on the records, is not below them).
#   test_records_floor.sh RECORDS TUNER COMPARE REPORT
. "$KT_SOURCE_DIR/tests/cli/lib.sh"
check=$KT_SOURCE_DIR/tests/app/check_below.sh
records=$1 tuner=$2 compare=$3 report=$4

expect_exit 0 bash "$check" "$records" "$tuner" "$compare" "$report"
expect_text "needs nothing of the 3 libraries above it"
# Planted: the tuner is not below the records.
expect_exit 1 bash "$check" "$tuner" "$records"
expect_text "(defined only in libktune_records.a)"
finish
