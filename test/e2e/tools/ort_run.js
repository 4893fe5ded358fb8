#!/usr/bin/env node
// Runs an ONNX model with ONNX Runtime (CPU) on .npy inputs and writes .npy outputs.
//
//   node ort_run.js model.onnx --input a.npy [--input b.npy ...] --output-dir DIR
//        [--threads N] [--bench N] [--warmup N] [--warmup-ms T]
//        [--opt-level disabled|basic|extended|all]
//        [--ort-dir DIR]
//
// Inputs are bound to the model's inputs in graph-input order; `--input NAME=path.npy`
// binds by name instead. Outputs are written as DIR/output_<i>.npy in the model's
// output order; one line per output is printed:
//   output <i> <name> <dtype> [d0,d1,...] <path>
// With --bench N the model is run --warmup times (default max(3, N/10)) and more until
// --warmup-ms (default 100) have passed, as kiln_bench warms up, then N timed
// runs; the line `median_ms <value>` (also min_ms, mean_ms) is printed. Timing covers
// session.run only.
//
// onnxruntime-node is looked up in --ort-dir, then $KILN_ORT_DIR, then <repo>/build/ort
// (see install_ort.sh); each may be the install dir or the package dir itself.
'use strict';

const fs = require('fs');
const path = require('path');
const { readNpy, writeNpy } = require('./npy');

function usage(msg) {
  if (msg) process.stderr.write(`ort_run.js: ${msg}\n`);
  process.stderr.write(
    'usage: node ort_run.js model.onnx --input a.npy [...] --output-dir DIR ' +
      '[--threads N] [--bench N] [--warmup N] [--warmup-ms T] [--opt-level LEVEL] ' +
      '[--ort-dir DIR]\n');
  process.exit(2);
}

function parseArgs(argv) {
  const args = { inputs: [], threads: 0, bench: 0, warmup: -1, warmupMs: 100, optLevel: 'all' };
  for (let i = 0; i < argv.length; i++) {
    const a = argv[i];
    const next = () => {
      if (i + 1 >= argv.length) usage(`${a} needs a value`);
      return argv[++i];
    };
    if (a === '--input' || a === '-i') args.inputs.push(next());
    else if (a === '--output-dir' || a === '-o') args.outputDir = next();
    else if (a === '--threads') args.threads = parseInt(next(), 10);
    else if (a === '--bench') args.bench = parseInt(next(), 10);
    else if (a === '--warmup') args.warmup = parseInt(next(), 10);
    else if (a === '--warmup-ms') args.warmupMs = parseFloat(next());
    else if (a === '--opt-level') args.optLevel = next();
    else if (a === '--ort-dir') args.ortDir = next();
    else if (a === '-h' || a === '--help') usage();
    else if (a.startsWith('-')) usage(`unknown option ${a}`);
    else if (!args.model) args.model = a;
    else usage(`unexpected argument ${a}`);
  }
  if (!args.model) usage('missing model');
  if (!['disabled', 'basic', 'extended', 'all'].includes(args.optLevel))
    usage(`bad --opt-level ${args.optLevel}`);
  return args;
}

function loadOrt(ortDir) {
  const repoRoot = path.resolve(__dirname, '..', '..', '..');
  const candidates = [ortDir, process.env.KILN_ORT_DIR, path.join(repoRoot, 'build', 'ort')]
    .filter(Boolean);
  for (const dir of candidates) {
    for (const p of [path.join(dir, 'node_modules', 'onnxruntime-node'), dir]) {
      if (fs.existsSync(path.join(p, 'package.json')) &&
          require(path.join(p, 'package.json')).name === 'onnxruntime-node')
        return require(p);
    }
  }
  throw new Error(
    `onnxruntime-node not found (looked in: ${candidates.join(', ')}); run install_ort.sh`);
}

function median(xs) {
  const s = [...xs].sort((a, b) => a - b);
  const m = s.length >> 1;
  return s.length % 2 ? s[m] : (s[m - 1] + s[m]) / 2;
}

async function main() {
  const args = parseArgs(process.argv.slice(2));
  const ort = loadOrt(args.ortDir);

  const options = { executionProviders: ['cpu'], graphOptimizationLevel: args.optLevel };
  if (args.threads > 0) {
    options.intraOpNumThreads = args.threads;
    options.interOpNumThreads = 1;
  }
  const session = await ort.InferenceSession.create(args.model, options);

  const feeds = {};
  args.inputs.forEach((spec, i) => {
    let name, file;
    const eq = spec.indexOf('=');
    if (eq > 0 && !fs.existsSync(spec)) {
      name = spec.slice(0, eq);
      file = spec.slice(eq + 1);
    } else {
      if (i >= session.inputNames.length)
        throw new Error(`model has ${session.inputNames.length} inputs, got more --input`);
      name = session.inputNames[i];
      file = spec;
    }
    const t = readNpy(file);
    feeds[name] = new ort.Tensor(t.type, t.data, t.dims);
  });

  let results = await session.run(feeds);

  if (args.bench > 0) {
    const warmup = args.warmup >= 0 ? args.warmup : Math.max(3, Math.floor(args.bench / 10));
    const warmStart = process.hrtime.bigint();
    const warmNs = BigInt(Math.round(args.warmupMs * 1e6));
    for (let i = 0; i < warmup ||
         (i < 100000 && process.hrtime.bigint() - warmStart < warmNs); i++)
      await session.run(feeds);
    const times = [];
    for (let i = 0; i < args.bench; i++) {
      const t0 = process.hrtime.bigint();
      results = await session.run(feeds);
      times.push(Number(process.hrtime.bigint() - t0) / 1e6);
    }
    const mean = times.reduce((a, b) => a + b, 0) / times.length;
    console.log(`median_ms ${median(times).toFixed(4)}`);
    console.log(`min_ms ${Math.min(...times).toFixed(4)}`);
    console.log(`mean_ms ${mean.toFixed(4)}`);
  }

  if (args.outputDir) fs.mkdirSync(args.outputDir, { recursive: true });
  session.outputNames.forEach((name, i) => {
    const t = results[name];
    let file = '-';
    if (args.outputDir) {
      file = path.join(args.outputDir, `output_${i}.npy`);
      writeNpy(file, t.type, t.dims, t.data);
    }
    console.log(`output ${i} ${name} ${t.type} [${t.dims.join(',')}] ${file}`);
  });
}

main().catch((e) => {
  process.stderr.write(`ort_run.js: ${(e && e.message ? e.message : String(e)).split('\n')[0]}\n`);
  process.exit(1);
});
