# SPDX-License-Identifier: Apache-2.0
"""bench/hub/kt_hub.py hands Kernel Tuner 1.5.0's cupy backend the device
UUID as the 16 bytes it passes to uuid.UUID(bytes=...), whatever form
CuPy gives it in (CuPy 14.2.0 on the H200 broke every Kernel Tuner run
before its first kernel: 'bytes is not a 16-char string')."""
import os
import sys
import unittest
import uuid

sys.path.insert(0, os.path.join(os.environ["KT_SOURCE_DIR"], "bench", "hub"))
import kt_hub  # noqa: E402

RAW = bytes.fromhex("eb38ebddc18cf5959a8638fcefb43fcf")


class UuidBytes(unittest.TestCase):
    def test_every_form_gives_the_same_sixteen_bytes(self):
        forms = [RAW, bytearray(RAW), RAW + b"\0\0", "GPU-eb38ebdd-c18c-f595-9a86-38fcefb43fcf",
                 "eb38ebddc18cf5959a8638fcefb43fcf", b"GPU-eb38ebdd-c18c-f595-9a86-38fcefb43fcf"]
        for v in forms:
            got = kt_hub.uuid_bytes(v)
            self.assertEqual(got, RAW, repr(v))
            self.assertEqual(str(uuid.UUID(bytes=got)), "eb38ebdd-c18c-f595-9a86-38fcefb43fcf")

    def test_anything_else_still_gives_sixteen_bytes(self):
        for v in (b"", b"short", "not hex at all, and longer than sixteen", 12345):
            self.assertEqual(len(kt_hub.uuid_bytes(v)), 16, repr(v))


if __name__ == "__main__":
    unittest.main()
