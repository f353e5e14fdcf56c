// SPDX-License-Identifier: Apache-2.0
/*
 * ktune-nvrtc: the NVRTC helper process (engine/nvrtc_procs.h). The compile
 * pool starts one per compile thread and sends it requests on fd 3; run by
 * hand it only says what it is.
 */
#include <fcntl.h>
#include <stdio.h>
#include <string.h>

#include "engine/nvrtc_procs.h"

int main(int argc, char **argv)
{
    if (argc != 2 || strcmp(argv[1], "--serve") != 0 ||
        fcntl(3, F_GETFD) == -1) {
        fprintf(stderr, "usage: ktune-nvrtc --serve (with a socket on fd 3)\n"
                        "ktune's NVRTC helper: the compile pool starts it and "
                        "sends it kernels to compile.\n");
        return 2;
    }
    return kt_nvrtc_procs_serve(3);
}
