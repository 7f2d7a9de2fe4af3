# assertPythonInflates (GzipReaders.swift): python3 gzip_check.py GZIP OUT inflates GZIP into OUT
# with Python's gzip module, after checking with zlib that it is one gzip member with a bare header.
import gzip, sys, zlib
data = open(sys.argv[1], "rb").read()
assert data[:4] == b"\x1f\x8b\x08\x00" and data[4:8] == bytes(4), "header: %r" % data[:10]
z = zlib.decompressobj(31)
one = z.decompress(data) + z.flush()
assert z.eof and not z.unused_data, "not exactly one gzip member"
out = gzip.decompress(data)
assert out == one
open(sys.argv[2], "wb").write(out)
