# SPDX-License-Identifier: Apache-2.0
# `ktune profile` without a GPU: metric names are checked first (exit 2
# with close matches, no device needed), --list-metrics prints the
# catalog, contradictory options are refused, and with valid names the
# command stops at the missing device with one line.
. "$KT_SOURCE_DIR/tests/cli/lib.sh"

expect_exit 0 "$KTUNE" profile --help
expect_text "usage: ktune profile"
expect_exit 0 "$KTUNE" profile --list-metrics
expect_text "achieved_occupancy"
expect_text "= l1tex__t_sectors_pipe_lsu_mem_global_op_ld.sum"
expect_text "theoretical_occupancy"
expect_exit 2 "$KTUNE" profile vector_add:add --metrics occupncy
expect_text "unknown metric 'occupncy'; did you mean 'achieved_occupancy'"
expect_lines 1
expect_exit 2 "$KTUNE" profile vector_add:add --metrics l2_hit,dram_bytes_read
expect_text "did you mean 'l2_hit_rate'?"
expect_exit 2 "$KTUNE" profile vector_add:add --metrics dram__bytes_read
expect_text "no rollup or ratio suffix"
expect_exit 2 "$KTUNE" profile vector_add:add --no-counters --metrics l1_hit_rate
expect_text "--no-counters cannot be combined"
expect_exit 2 "$KTUNE" profile vector_add:add --no-default-metrics
expect_text "--no-default-metrics needs --metrics"
expect_exit 2 "$KTUNE" profile vector_add:add --access-bytes 0
expect_exit 2 "$KTUNE" profile vector_add:add --profile-launches 0
expect_text "--profile-launches: expected 1 to 15, found 0"
expect_exit 2 "$KTUNE" profile vector_add:add --profile-launches 16
expect_exit 2 "$KTUNE" compare vector_add:add --profile-launches x
expect_text "--profile-launches"
expect_exit 2 "$KTUNE" profile
expect_text "PLUGIN:OPERATOR is missing"
expect_exit 2 "$KTUNE" profile vector_add:add --variant strded
expect_text "did you mean 'strided'?"
if ! "$KT_HAS_GPU"; then
    expect_exit 1 "$KTUNE" profile vector_add:add --metrics smsp__inst_executed.sum
    expect_text "no CUDA device or driver found on this machine"
    expect_lines 1
fi
finish
