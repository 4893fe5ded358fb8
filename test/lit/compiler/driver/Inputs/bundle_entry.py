"""bundle_entry.py BUNDLE INDEX OUT: copies entry INDEX of a kiln bundle to
OUT, reading the manifest as kiln_rt does, and prints the entry's ELF
machine (x86_64, aarch64, riscv64)."""
import sys

data = open(sys.argv[1], "rb").read()
lines = data[:data.index(b"\nend\n")].decode().split("\n")
assert lines[0] == "KILN-BUNDLE 1", lines[0]
entry = lines[2 + int(sys.argv[2])].split(" ")
offset, size = int(entry[1]), int(entry[2])
lib = data[offset:offset + size]
assert lib[:4] == b"\x7fELF", "entry is not an ELF file"
open(sys.argv[3], "wb").write(lib)
machine = int.from_bytes(lib[18:20], "little")
print({62: "x86_64", 183: "aarch64", 243: "riscv64"}.get(machine, machine))
