// Minimal reader/writer for NumPy .npy files (format versions 1.0, 2.0, 3.0),
// C order only, little-endian and byte-sized dtypes.
'use strict';

const fs = require('fs');

// npy descr (without byte-order char) -> [onnxruntime tensor type, TypedArray ctor]
const DTYPES = {
  b1: ['bool', Uint8Array],
  u1: ['uint8', Uint8Array],
  i1: ['int8', Int8Array],
  u2: ['uint16', Uint16Array],
  i2: ['int16', Int16Array],
  u4: ['uint32', Uint32Array],
  i4: ['int32', Int32Array],
  u8: ['uint64', BigUint64Array],
  i8: ['int64', BigInt64Array],
  f2: ['float16', Uint16Array],
  f4: ['float32', Float32Array],
  f8: ['float64', Float64Array],
};

const TYPE_TO_DESCR = {};
for (const [descr, [type]] of Object.entries(DTYPES)) TYPE_TO_DESCR[type] = descr;

function parseHeader(text, file) {
  const descr = /'descr'\s*:\s*'([^']*)'/.exec(text);
  const fortran = /'fortran_order'\s*:\s*(True|False)/.exec(text);
  const shape = /'shape'\s*:\s*\(([^)]*)\)/.exec(text);
  if (!descr || !fortran || !shape) throw new Error(`${file}: malformed .npy header: ${text}`);
  if (fortran[1] === 'True') throw new Error(`${file}: Fortran-order .npy is not supported`);
  const dims = shape[1].split(',').map((s) => s.trim()).filter((s) => s.length).map(Number);
  return { descr: descr[1], dims };
}

// Returns { type, dims, data } where data is a TypedArray suitable for ort.Tensor.
function readNpy(file) {
  const buf = fs.readFileSync(file);
  if (buf.length < 10 || buf[0] !== 0x93 || buf.toString('latin1', 1, 6) !== 'NUMPY')
    throw new Error(`${file}: not a .npy file`);
  const major = buf[6];
  let headerLen, offset;
  if (major === 1) {
    headerLen = buf.readUInt16LE(8);
    offset = 10;
  } else if (major === 2 || major === 3) {
    headerLen = buf.readUInt32LE(8);
    offset = 12;
  } else {
    throw new Error(`${file}: unsupported .npy version ${major}`);
  }
  const header = parseHeader(buf.toString('latin1', offset, offset + headerLen), file);
  const dataStart = offset + headerLen;
  let d = header.descr;
  const order = d[0];
  if (order === '>' && d.slice(1) !== 'i1' && d.slice(1) !== 'u1' && d.slice(1) !== 'b1')
    throw new Error(`${file}: big-endian .npy is not supported`);
  if (order === '<' || order === '|' || order === '=' || order === '>') d = d.slice(1);
  const entry = DTYPES[d];
  if (!entry) throw new Error(`${file}: unsupported dtype '${header.descr}'`);
  const [type, Ctor] = entry;
  const count = header.dims.reduce((a, b) => a * b, 1);
  const nbytes = count * Ctor.BYTES_PER_ELEMENT;
  if (buf.length - dataStart < nbytes) throw new Error(`${file}: truncated data`);
  // Copy into a fresh, aligned ArrayBuffer.
  const ab = new ArrayBuffer(nbytes);
  new Uint8Array(ab).set(buf.subarray(dataStart, dataStart + nbytes));
  return { type, dims: header.dims, data: new Ctor(ab) };
}

function writeNpy(file, type, dims, data) {
  const d = TYPE_TO_DESCR[type];
  if (!d) throw new Error(`cannot write tensor of type '${type}' to .npy`);
  const descr = (d === 'b1' || d === 'u1' || d === 'i1' ? '|' : '<') + d;
  const shape = dims.length === 0 ? '()' : dims.length === 1 ? `(${dims[0]},)` : `(${dims.join(', ')})`;
  let header = `{'descr': '${descr}', 'fortran_order': False, 'shape': ${shape}, }`;
  // Pad so that magic(6) + version(2) + len(2) + header + '\n' is a multiple of 64.
  const total = Math.ceil((10 + header.length + 1) / 64) * 64;
  header = header.padEnd(total - 10 - 1, ' ') + '\n';
  const pre = Buffer.alloc(10);
  pre[0] = 0x93;
  pre.write('NUMPY', 1, 'latin1');
  pre[6] = 1;
  pre[7] = 0;
  pre.writeUInt16LE(header.length, 8);
  let bytes;
  if (type === 'bool') {
    bytes = Buffer.from(Uint8Array.from(data, (v) => (v ? 1 : 0)));
  } else {
    bytes = Buffer.from(data.buffer, data.byteOffset, data.byteLength);
  }
  fs.writeFileSync(file, Buffer.concat([pre, Buffer.from(header, 'latin1'), bytes]));
}

module.exports = { readNpy, writeNpy };
