"""add_bundle_entry.py BUNDLE OUT INDEX CPU FEATURES: writes OUT, a copy of a
kiln bundle whose manifest lists one more entry first: entry INDEX's library
again, claimed for CPU with FEATURES. The libraries keep their offsets (the
manifest stays inside its first 4 KiB)."""
import sys

data = open(sys.argv[1], "rb").read()
head_end = data.index(b"\nend\n") + 5
lines = data[:head_end].decode().rstrip("\n").split("\n")
entries = lines[2:-1]
base = entries[int(sys.argv[3])].split(" ")
extra = " ".join(base[:5] + [sys.argv[4], sys.argv[5]])
manifest = "\n".join([lines[0], f"entries {len(entries) + 1}", extra]
                     + entries + ["end"]) + "\n"
first = min(int(e.split(" ")[1]) for e in entries)
assert len(manifest) <= first, "manifest grew past the first library"
open(sys.argv[2], "wb").write(manifest.encode().ljust(first, b"\0") + data[first:])
