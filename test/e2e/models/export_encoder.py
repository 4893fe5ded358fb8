#!/usr/bin/python3
"""Exports a small BERT-like transformer encoder to ONNX (opset 17).

    /usr/bin/python3 test/e2e/models/export_encoder.py [OUT.onnx]
        (default: test/e2e/models/cache/encoder.onnx)

Needs Debian's python3-torch and python3-onnx. The model: int64 token ids [batch, 32]
-> token embedding (Gather) + learned position embedding -> LayerNorm -> 2 post-norm
encoder layers (Q/K/V MatMul, 4-head scaled dot-product Softmax attention, output
projection, residual + LayerNormalization, FFN with exact erf GELU) -> hidden states
[batch, 32, 64]. The batch axis is dynamic. Weights come from a fixed seed, so the file
is the same on every run with the same torch version. Prints the op types it contains.
"""

import collections
import math
import os
import sys

import onnx
import torch
from torch import nn

VOCAB = 1000
SEQ = 32
HIDDEN = 64
HEADS = 4
FFN = 256
LAYERS = 2
OPSET = 17


class SelfAttention(nn.Module):
    def __init__(self):
        super().__init__()
        self.q = nn.Linear(HIDDEN, HIDDEN)
        self.k = nn.Linear(HIDDEN, HIDDEN)
        self.v = nn.Linear(HIDDEN, HIDDEN)
        self.out = nn.Linear(HIDDEN, HIDDEN)
        self.head_dim = HIDDEN // HEADS

    def split_heads(self, x):
        # [b, s, h*d] -> [b, h, s, d]; the batch dim stays symbolic through -1.
        return x.reshape(-1, SEQ, HEADS, self.head_dim).transpose(1, 2)

    def forward(self, x):
        q = self.split_heads(self.q(x))
        k = self.split_heads(self.k(x))
        v = self.split_heads(self.v(x))
        scores = torch.matmul(q, k.transpose(-1, -2)) / math.sqrt(self.head_dim)
        probs = torch.softmax(scores, dim=-1)
        ctx = torch.matmul(probs, v).transpose(1, 2).reshape(-1, SEQ, HIDDEN)
        return self.out(ctx)


class EncoderLayer(nn.Module):
    def __init__(self):
        super().__init__()
        self.attn = SelfAttention()
        self.ln1 = nn.LayerNorm(HIDDEN, eps=1e-12)
        self.ff1 = nn.Linear(HIDDEN, FFN)
        self.act = nn.GELU()  # exact form: 0.5 * x * (1 + erf(x / sqrt(2)))
        self.ff2 = nn.Linear(FFN, HIDDEN)
        self.ln2 = nn.LayerNorm(HIDDEN, eps=1e-12)

    def forward(self, x):
        x = self.ln1(x + self.attn(x))
        return self.ln2(x + self.ff2(self.act(self.ff1(x))))


class Encoder(nn.Module):
    def __init__(self):
        super().__init__()
        self.tok = nn.Embedding(VOCAB, HIDDEN)
        self.pos = nn.Parameter(torch.randn(SEQ, HIDDEN) * 0.02)
        self.ln = nn.LayerNorm(HIDDEN, eps=1e-12)
        self.layers = nn.ModuleList([EncoderLayer() for _ in range(LAYERS)])

    def forward(self, input_ids):
        x = self.ln(self.tok(input_ids) + self.pos)
        for layer in self.layers:
            x = layer(x)
        return x


def main():
    here = os.path.dirname(os.path.abspath(__file__))
    out = sys.argv[1] if len(sys.argv) > 1 else os.path.join(here, "cache", "encoder.onnx")
    os.makedirs(os.path.dirname(os.path.abspath(out)), exist_ok=True)

    torch.manual_seed(0)
    model = Encoder().eval()
    ids = torch.randint(0, VOCAB, (2, SEQ), dtype=torch.int64)
    with torch.no_grad():
        torch.onnx.export(
            model, (ids,), out, opset_version=OPSET, do_constant_folding=True,
            input_names=["input_ids"], output_names=["last_hidden_state"],
            dynamic_axes={"input_ids": {0: "batch"}, "last_hidden_state": {0: "batch"}})

    m = onnx.load(out)
    onnx.checker.check_model(m, full_check=True)
    ops = collections.Counter(n.op_type for n in m.graph.node)
    print(f"wrote {out} (opset {m.opset_import[0].version}, vocab {VOCAB}, seq {SEQ}, "
          f"hidden {HIDDEN}, heads {HEADS}, layers {LAYERS})")
    print("ops: " + ", ".join(f"{op} x{n}" for op, n in sorted(ops.items())))
    if "LayerNormalization" not in ops:
        print("note: this torch version did not emit LayerNormalization; LayerNorm is "
              "decomposed into ReduceMean/Sub/Pow/Sqrt/Div")


if __name__ == "__main__":
    main()
