#!/usr/bin/env python3
"""One training step of a trainsim scenario's model in PyTorch: measured step times, Kineto traces.

    train_step.py SCENARIO.yaml [...] --out DIR [--device cuda|cpu]
                  [--impl auto|transformers|native] [--warmup N] [--steps N]
                  [--profile-steps N] [--tiny]

The scenario YAML is the single source of truth: the model (transformers' GPT2LMHeadModel or
LlamaForCausalLM with random weights, or this file's plain-PyTorch twin) is built from it, and
trainsim predicts the same step from the same file. Writes DIR/steps.json after every scenario
(atomically) and DIR/<name>/trace.json.gz. A failing scenario is recorded (with its traceback)
and the next one runs; exit 1 when any failed. README.md beside this file has the fields.
"""
import argparse
import dataclasses
import gc
import gzip
import inspect
import math
import os
import re
import shutil
import sys
import time
import traceback

sys.dont_write_bytecode = True  # noqa: E402 - keep __pycache__ out of the source tree

import torch  # noqa: E402
import torch.nn as nn  # noqa: E402
import torch.nn.functional as F  # noqa: E402
import yaml  # noqa: E402

import common  # noqa: E402
from common import log  # noqa: E402

SCHEMA = "trainsim-pytorch-steps/1"


class ScenarioError(Exception):
    """A scenario this step cannot represent; the message names file, field and value."""


# --------------------------------------------------------------------------------------------
# The scenario: trainsim's keys (inputs/parameters.cpp), read with trainsim's defaults.

KNOWN_KEYS = {
    "": {"name", "hardware", "gpus", "model", "training", "parallel", "runtime"},
    "model": {"layers", "hidden", "heads", "kv_heads", "head_dim", "ffn", "seq_len", "vocab",
              "dtype", "attention_flops", "make_vocab_divisible_by", "activation", "norm",
              "position", "attention", "qk_norm", "attention_window", "rope_theta",
              "tied_embeddings", "bias", "hidden_dropout", "attention_dropout"},
    "training": {"global_batch", "micro_batch", "optimizer", "clip_grad", "precision",
                 "fp8_recipe", "mode"},
    "parallel": {"tensor", "pipeline", "context", "data", "recompute"},
}


@dataclasses.dataclass(frozen=True)
class StepConfig:
    """The model and step of one scenario, as this script runs it."""
    name: str
    file: str
    layers: int
    hidden: int
    heads: int
    kv_heads: int
    ffn: int
    seq_len: int
    vocab: int          # as trained (token ids are drawn below this)
    vocab_padded: int   # the embedding's rows: vocab rounded up to make_vocab_divisible_by
    activation: str     # gelu | swiglu
    norm: str           # layernorm | rmsnorm
    position: str       # learned | rope
    attention: str      # flash (SDPA) | standard (explicit softmax attention)
    rope_theta: float
    tied_embeddings: bool
    bias: bool
    hidden_dropout: float
    attention_dropout: float
    micro_batch: int
    clip_grad: float

    @property
    def head_dim(self):
        return self.hidden // self.heads

    @property
    def family(self):
        """gpt2 or llama when the layer is one of the two transformers classes, else mixed."""
        if (self.activation, self.norm, self.position) == ("gelu", "layernorm", "learned"):
            return "gpt2"
        if (self.activation, self.norm, self.position) == ("swiglu", "rmsnorm", "rope"):
            return "llama"
        return "mixed"

    @property
    def tokens(self):
        return self.micro_batch * self.seq_len


class Section:
    """One mapping of the YAML with the path of its fields, for errors that name them."""

    def __init__(self, file, path, mapping):
        self.file, self.path, self.map = file, path, mapping if mapping is not None else {}
        if not isinstance(self.map, dict):
            self.fail("", f"expected a mapping, got {self.map!r}")

    def field(self, key):
        return f"{self.path}.{key}" if self.path else key

    def fail(self, key, message):
        raise ScenarioError(f"{self.file}: {self.field(key)}: {message}")

    def check_known(self, known):
        for key in self.map:
            if key not in known:
                self.fail(key, "not a trainsim scenario key this script knows; valid: "
                          + ", ".join(sorted(known)))

    def get(self, key, default=None, kind=None):
        value = self.map.get(key, default)
        if kind is int and (isinstance(value, bool) or not isinstance(value, int)):
            self.fail(key, f"expected an integer, got {value!r}")
        if kind is float and (isinstance(value, bool) or not isinstance(value, (int, float))):
            self.fail(key, f"expected a number, got {value!r}")
        if kind is bool and not isinstance(value, bool):
            self.fail(key, f"expected true or false, got {value!r}")
        return float(value) if kind is float else value

    def choice(self, key, default, valid):
        value = self.map.get(key, default)
        if value not in valid:
            self.fail(key, f"{value!r} is not one of {', '.join(valid)}")
        return value

    def section(self, key):
        return Section(self.file, self.field(key), self.map.get(key))


def refuse(section, key, value, why):
    section.fail(key, f"{value!r}: {why}")


def read_parallel(top):
    """Refuses every parallel layout: the step runs on one GPU, as the scenario must say."""
    par = top.section("parallel")
    par.check_known(KNOWN_KEYS["parallel"])
    for axis in ("tensor", "pipeline", "context", "data"):
        sec = par.section(axis)
        size = sec.get("size", 1)
        if size != 1:
            refuse(sec, "size", size, "this step runs one GPU: every parallel size must be 1")
    data = par.section("data")
    if data.get("zero", 0) != 0:
        refuse(data, "zero", data.get("zero"), "ZeRO shards over data parallelism; "
               "this step has none (set 0)")
    chunks = par.section("pipeline").get("chunks", 1)
    if chunks != 1:
        refuse(par.section("pipeline"), "chunks", chunks, "no pipeline here (set 1)")
    recompute = par.get("recompute", "none")
    if recompute != "none":
        refuse(par, "recompute", recompute, "this step keeps every activation (set none)")


def read_training(top):
    tr = top.section("training")
    tr.check_known(KNOWN_KEYS["training"])
    micro = tr.get("micro_batch", 1, int)
    global_batch = tr.get("global_batch", None, int)
    if global_batch != micro:
        refuse(tr, "global_batch", global_batch, f"this step has no gradient accumulation: "
               f"global_batch must equal micro_batch ({micro})")
    if tr.get("precision", "bf16") != "bf16":
        refuse(tr, "precision", tr.get("precision"), "this step runs bf16 autocast only")
    if tr.get("mode", "training") != "training":
        refuse(tr, "mode", tr.get("mode"), "this step trains (set training)")
    if tr.get("optimizer", "adam") != "adam":
        refuse(tr, "optimizer", tr.get("optimizer"), "this step runs AdamW")
    clip = tr.get("clip_grad", 1.0, float)
    if clip < 0:
        refuse(tr, "clip_grad", clip, "must be >= 0 (0: no clipping)")
    return micro, clip


def read_scenario(path):
    """The StepConfig of one trainsim scenario file, or ScenarioError naming file and field."""
    try:
        with open(path, encoding="utf-8") as f:
            root = yaml.safe_load(f)
    except (OSError, yaml.YAMLError) as e:
        raise ScenarioError(f"{path}: cannot read: {e}") from None
    top = Section(path, "", root)
    top.check_known(KNOWN_KEYS[""])
    gpus = top.get("gpus", None, int)
    if gpus != 1:
        refuse(top, "gpus", gpus, "this step runs on one GPU (set gpus: 1)")
    read_parallel(top)
    micro, clip = read_training(top)

    m = top.section("model")
    m.check_known(KNOWN_KEYS["model"])
    for key, why in (("head_dim", "heads x head_dim must equal hidden here (drop head_dim)"),
                     ("attention_window", "no sliding-window attention in this step")):
        if key in m.map:
            refuse(m, key, m.map[key], why)
    if m.get("qk_norm", False, bool):
        refuse(m, "qk_norm", True, "no QK-norm in these models")
    if m.get("dtype", "bf16") != "bf16":
        refuse(m, "dtype", m.get("dtype"), "this step runs bf16 autocast over fp32 parameters")

    hidden = m.get("hidden", None, int)
    heads = m.get("heads", None, int)
    kv_heads = m.get("kv_heads", heads, int)
    if hidden % heads:
        refuse(m, "heads", heads, f"must divide hidden ({hidden})")
    if heads % kv_heads:
        refuse(m, "kv_heads", kv_heads, f"must divide heads ({heads})")
    vocab = m.get("vocab", 51200, int)
    divisor = m.get("make_vocab_divisible_by", 128, int)
    dropouts = {}
    for key in ("hidden_dropout", "attention_dropout"):
        dropouts[key] = m.get(key, 0.1, float)
        if not 0 <= dropouts[key] < 1:
            refuse(m, key, dropouts[key], "a probability in [0, 1)")
    name = top.get("name") or os.path.splitext(os.path.basename(path))[0]
    return StepConfig(
        name=str(name), file=path, layers=m.get("layers", None, int), hidden=hidden,
        heads=heads, kv_heads=kv_heads, ffn=m.get("ffn", 4 * hidden, int),
        seq_len=m.get("seq_len", 2048, int), vocab=vocab,
        vocab_padded=-(-vocab // divisor) * divisor,
        activation=m.choice("activation", "gelu", ("gelu", "swiglu")),
        norm=m.choice("norm", "layernorm", ("layernorm", "rmsnorm")),
        position=m.choice("position", "learned", ("learned", "rope")),
        attention=m.choice("attention", "standard", ("standard", "flash")),
        rope_theta=m.get("rope_theta", 10000.0, float),
        tied_embeddings=m.get("tied_embeddings", True, bool), bias=m.get("bias", True, bool),
        hidden_dropout=dropouts["hidden_dropout"],
        attention_dropout=dropouts["attention_dropout"], micro_batch=micro, clip_grad=clip)


def shrink(cfg):
    """--tiny: the same model kinds at a size a CPU runs in seconds (GQA kept when present)."""
    heads = 4
    return dataclasses.replace(
        cfg, layers=2, hidden=64, heads=heads, kv_heads=heads if cfg.kv_heads == cfg.heads else 2,
        ffn=128, seq_len=32, vocab=256, vocab_padded=256, micro_batch=2)


def model_flops(cfg):
    """Model FLOPs of one training step (forward + backward), the formula README.md states:
    6 x matmul parameters x tokens + 12 x layers x batch x seq^2 x heads x head_dim (attention's
    QK^T and PV counted densely, as trainsim's default attention_flops: dense)."""
    d, a, g, h = cfg.head_dim, cfg.heads, cfg.kv_heads, cfg.hidden
    mlp = (3 if cfg.activation == "swiglu" else 2) * h * cfg.ffn
    per_layer = h * (a + 2 * g) * d + a * d * h + mlp
    matmul_params = cfg.layers * per_layer + cfg.vocab_padded * h
    matmul = 6 * matmul_params * cfg.tokens
    attention = 12 * cfg.layers * cfg.micro_batch * cfg.seq_len ** 2 * a * d
    return {"matmul_parameters": matmul_params, "matmul": matmul, "attention_dense": attention,
            "total_dense": matmul + attention, "total_causal": matmul + attention // 2}


# --------------------------------------------------------------------------------------------
# The native models: GPT-2's and Llama's layers in plain PyTorch, op for op as transformers
# writes them (the dtype flow under autocast included), for where transformers is absent.

class RMSNorm(nn.Module):
    """Llama's RMSNorm as transformers writes it: statistics in fp32, gain in the input dtype."""

    def __init__(self, width, eps=1e-5):
        super().__init__()
        self.weight = nn.Parameter(torch.ones(width))
        self.eps = eps

    def forward(self, x):
        dtype = x.dtype
        x = x.to(torch.float32)
        x = x * torch.rsqrt(x.pow(2).mean(-1, keepdim=True) + self.eps)
        return self.weight * x.to(dtype)


def make_norm(cfg):
    return nn.LayerNorm(cfg.hidden, eps=1e-5) if cfg.norm == "layernorm" else RMSNorm(cfg.hidden)


class Rotary(nn.Module):
    """RoPE's cos and sin for every position, in fp32 with autocast off (as transformers does)."""

    def __init__(self, head_dim, theta):
        super().__init__()
        exponents = torch.arange(0, head_dim, 2, dtype=torch.int64).float() / head_dim
        self.register_buffer("inv_freq", 1.0 / (theta ** exponents), persistent=False)

    def forward(self, x, positions):
        inv = self.inv_freq[None, :, None].float().expand(positions.shape[0], -1, 1)
        pos = positions[:, None, :].float()
        with torch.autocast(device_type=x.device.type, enabled=False):
            freqs = (inv @ pos).transpose(1, 2)
            emb = torch.cat((freqs, freqs), dim=-1)
            return emb.cos().to(x.dtype), emb.sin().to(x.dtype)


def rotate_half(x):
    half = x.shape[-1] // 2
    return torch.cat((-x[..., half:], x[..., :half]), dim=-1)


def apply_rotary(q, k, cos, sin):
    cos, sin = cos.unsqueeze(1), sin.unsqueeze(1)
    return q * cos + rotate_half(q) * sin, k * cos + rotate_half(k) * sin


def repeat_kv(x, times):
    """GQA without SDPA's enable_gqa: each key/value head copied for its group of query heads."""
    if times == 1:
        return x
    b, g, s, d = x.shape
    return x[:, :, None].expand(b, g, times, s, d).reshape(b, g * times, s, d)


class Attention(nn.Module):
    """Self-attention: GPT-2's fused QKV linear or Llama's three; SDPA or explicit softmax."""

    def __init__(self, cfg, core):
        super().__init__()
        a, g, d, h = cfg.heads, cfg.kv_heads, cfg.head_dim, cfg.hidden
        self.shape = (a, g, d)
        self.fused_qkv = cfg.family == "gpt2"
        if self.fused_qkv:
            self.qkv = nn.Linear(h, (a + 2 * g) * d, bias=cfg.bias)
        else:
            self.q = nn.Linear(h, a * d, bias=cfg.bias)
            self.k = nn.Linear(h, g * d, bias=cfg.bias)
            self.v = nn.Linear(h, g * d, bias=cfg.bias)
        self.out = nn.Linear(a * d, h, bias=cfg.bias)
        self.core = core
        self.dropout_p = cfg.attention_dropout
        self.resid_dropout = nn.Dropout(cfg.hidden_dropout)

    def forward(self, x, rope):
        a, g, d = self.shape
        b, s, _ = x.shape
        if self.fused_qkv:
            q, k, v = self.qkv(x).split([a * d, g * d, g * d], dim=2)
        else:
            q, k, v = self.q(x), self.k(x), self.v(x)
        q, k, v = (t.view(b, s, -1, d).transpose(1, 2) for t in (q, k, v))
        if rope is not None:
            q, k = apply_rotary(q, k, *rope)
        o = self.core(q, k, v, self.dropout_p if self.training else 0.0)
        o = o.transpose(1, 2).contiguous().reshape(b, s, a * d)
        return self.resid_dropout(self.out(o))


class SdpaCore:
    """F.scaled_dot_product_attention, causal; GQA by enable_gqa where torch has it (>= 2.5,
    as transformers then does), else by repeating the key/value heads."""

    def __init__(self):
        self.gqa = "enable_gqa" if common.sdpa_has_enable_gqa() else "repeat_kv"

    def __call__(self, q, k, v, dropout_p):
        extra = {}
        if q.shape[1] != k.shape[1]:
            if self.gqa == "enable_gqa":
                extra["enable_gqa"] = True
            else:
                times = q.shape[1] // k.shape[1]
                k, v = repeat_kv(k, times), repeat_kv(v, times)
        return F.scaled_dot_product_attention(q, k, v, dropout_p=dropout_p, is_causal=True, **extra)


class ExplicitCore:
    """transformers' eager attention: QK^T scaled, an additive causal mask, softmax in fp32."""
    gqa = "repeat_kv"

    def __init__(self, seq_len, device):
        mask = torch.full((seq_len, seq_len), torch.finfo(torch.float32).min, device=device)
        self.mask = torch.triu(mask, diagonal=1)

    def __call__(self, q, k, v, dropout_p):
        times = q.shape[1] // k.shape[1]
        k, v = repeat_kv(k, times), repeat_kv(v, times)
        s = q.shape[2]
        w = torch.matmul(q, k.transpose(2, 3)) * q.shape[-1] ** -0.5
        w = w + self.mask[:s, :s]
        w = F.softmax(w, dim=-1, dtype=torch.float32).to(q.dtype)
        w = F.dropout(w, p=dropout_p, training=dropout_p > 0)
        return torch.matmul(w, v)


class Mlp(nn.Module):
    """GPT-2's fc -> GELU (tanh form, one kernel) -> proj, or Llama's down(silu(gate) * up)."""

    def __init__(self, cfg):
        super().__init__()
        self.swiglu = cfg.activation == "swiglu"
        if self.swiglu:
            self.gate = nn.Linear(cfg.hidden, cfg.ffn, bias=cfg.bias)
            self.up = nn.Linear(cfg.hidden, cfg.ffn, bias=cfg.bias)
        else:
            self.fc = nn.Linear(cfg.hidden, cfg.ffn, bias=cfg.bias)
        self.down = nn.Linear(cfg.ffn, cfg.hidden, bias=cfg.bias)
        self.dropout = nn.Dropout(cfg.hidden_dropout)

    def forward(self, x):
        if self.swiglu:
            x = F.silu(self.gate(x)) * self.up(x)
        else:
            x = F.gelu(self.fc(x), approximate="tanh")
        return self.dropout(self.down(x))


class Block(nn.Module):
    def __init__(self, cfg, core):
        super().__init__()
        self.norm1, self.attn = make_norm(cfg), Attention(cfg, core)
        self.norm2, self.mlp = make_norm(cfg), Mlp(cfg)

    def forward(self, x, rope):
        x = x + self.attn(self.norm1(x), rope)
        return x + self.mlp(self.norm2(x))


def causal_lm_loss(logits, labels):
    """transformers' ForCausalLMLoss: fp32 logits, labels shifted left with -100 at the end."""
    logits = logits.float()
    labels = F.pad(labels, (0, 1), value=-100)[..., 1:].contiguous()
    return F.cross_entropy(logits.view(-1, logits.shape[-1]), labels.view(-1), ignore_index=-100)


class NativeModel(nn.Module):
    def __init__(self, cfg, core):
        super().__init__()
        self.embed = nn.Embedding(cfg.vocab_padded, cfg.hidden)
        learned = cfg.position == "learned"
        self.positions = nn.Embedding(cfg.seq_len, cfg.hidden) if learned else None
        self.rotary = Rotary(cfg.head_dim, cfg.rope_theta) if cfg.position == "rope" else None
        self.dropout = nn.Dropout(cfg.hidden_dropout)
        self.blocks = nn.ModuleList(Block(cfg, core) for _ in range(cfg.layers))
        self.norm = make_norm(cfg)
        self.head = nn.Linear(cfg.hidden, cfg.vocab_padded, bias=False)
        if cfg.tied_embeddings:
            self.head.weight = self.embed.weight
        self.apply(self._init)

    @staticmethod
    def _init(module):
        # transformers' _init_weights: normal(0, 0.02) weights, zero biases (norms stay ones).
        if isinstance(module, (nn.Linear, nn.Embedding)):
            nn.init.normal_(module.weight, std=0.02)
        if isinstance(module, nn.Linear) and module.bias is not None:
            nn.init.zeros_(module.bias)

    def forward(self, ids):
        positions = torch.arange(ids.shape[1], device=ids.device)[None, :]
        x = self.embed(ids)
        if self.positions is not None:
            x = x + self.positions(positions)
        x = self.dropout(x)
        rope = self.rotary(x, positions) if self.rotary is not None else None
        for block in self.blocks:
            x = block(x, rope)
        return causal_lm_loss(self.head(self.norm(x)), ids)


def build_native(cfg, device):
    if cfg.attention == "flash" and common.has_sdpa():
        core, attn = SdpaCore(), "native-sdpa"
    else:
        core, attn = ExplicitCore(cfg.seq_len, device), "native-explicit"
    model = construct_on(device, lambda: NativeModel(cfg, core))
    info = {"implementation": f"native:{cfg.family}", "attention_implementation": attn,
            "gqa": core.gqa if cfg.kv_heads != cfg.heads else None}
    if cfg.attention == "flash" and not common.has_sdpa():
        info["implementation_note"] = (f"torch {torch.__version__} has no "
                                       "F.scaled_dot_product_attention: explicit attention")
    return model, (lambda ids: model(ids)), info


# --------------------------------------------------------------------------------------------
# The transformers models.

def hf_unrepresentable(cfg):
    """(field, value, why) for what GPT2LMHeadModel / LlamaForCausalLM cannot express, or None."""
    if cfg.family == "mixed":
        return ("model.activation/norm/position", f"{cfg.activation}/{cfg.norm}/{cfg.position}",
                "transformers has GPT-2 (gelu/layernorm/learned) and Llama "
                "(swiglu/rmsnorm/rope) layers; use --impl native")
    if cfg.family == "gpt2":
        checks = (("model.kv_heads", cfg.kv_heads, cfg.kv_heads == cfg.heads),
                  ("model.bias", cfg.bias, cfg.bias),
                  ("model.tied_embeddings", cfg.tied_embeddings, cfg.tied_embeddings))
        for field, value, ok in checks:
            if not ok:
                return (field, value, "GPT2LMHeadModel has multi-head attention, biases and tied "
                        "embeddings only; use --impl native")
    if cfg.family == "llama" and cfg.hidden_dropout > 0:
        return ("model.hidden_dropout", cfg.hidden_dropout,
                "LlamaForCausalLM has no hidden dropout; use --impl native")
    return None


def gelu_name(transformers):
    # GPT-2's tanh GELU as one PyTorch kernel (F.gelu approximate="tanh"), not "gelu_new", which
    # transformers writes as ~8 elementwise ops: the step should time the model, not that.
    try:
        from transformers.activations import ACT2FN  # noqa: PLC0415
        if "gelu_pytorch_tanh" in ACT2FN:
            return "gelu_pytorch_tanh"
    except Exception:  # noqa: BLE001
        pass
    return "gelu_new"


def make_config(config_class, wanted):
    """config_class(**wanted), passing only the keys its constructor takes when it takes no
    **kwargs (dropped keys are returned, to be recorded)."""
    params = inspect.signature(config_class.__init__).parameters
    if any(p.kind == p.VAR_KEYWORD for p in params.values()):
        return config_class(**wanted), []
    dropped = [k for k in wanted if k not in params]
    return config_class(**{k: v for k, v in wanted.items() if k in params}), dropped


def hf_config(transformers, cfg):
    """The config class, the model class and the config built from cfg."""
    common_kw = {"vocab_size": cfg.vocab_padded, "tie_word_embeddings": cfg.tied_embeddings,
                 "use_cache": False, "bos_token_id": 0, "eos_token_id": 0}
    if cfg.family == "gpt2":
        kw = dict(common_kw, n_positions=cfg.seq_len, n_embd=cfg.hidden, n_layer=cfg.layers,
                  n_head=cfg.heads, n_inner=cfg.ffn, activation_function=gelu_name(transformers),
                  resid_pdrop=cfg.hidden_dropout, embd_pdrop=cfg.hidden_dropout,
                  attn_pdrop=cfg.attention_dropout, layer_norm_epsilon=1e-5)
        config_class, model_class = transformers.GPT2Config, transformers.GPT2LMHeadModel
        expect = {"n_embd": cfg.hidden, "n_layer": cfg.layers, "n_head": cfg.heads,
                  "n_inner": cfg.ffn, "vocab_size": cfg.vocab_padded}
    else:
        kw = dict(common_kw, hidden_size=cfg.hidden, intermediate_size=cfg.ffn,
                  num_hidden_layers=cfg.layers, num_attention_heads=cfg.heads,
                  num_key_value_heads=cfg.kv_heads, max_position_embeddings=cfg.seq_len,
                  hidden_act="silu", attention_bias=cfg.bias, mlp_bias=cfg.bias,
                  rms_norm_eps=1e-5, attention_dropout=cfg.attention_dropout)
        config_class, model_class = transformers.LlamaConfig, transformers.LlamaForCausalLM
        # transformers 5 keeps RoPE's base in rope_parameters; 4.x in rope_theta.
        if "rope_parameters" in inspect.signature(config_class.__init__).parameters:
            kw["rope_parameters"] = {"rope_type": "default", "rope_theta": cfg.rope_theta}
        else:
            kw["rope_theta"] = cfg.rope_theta
        expect = {"hidden_size": cfg.hidden, "num_hidden_layers": cfg.layers,
                  "num_attention_heads": cfg.heads, "num_key_value_heads": cfg.kv_heads,
                  "intermediate_size": cfg.ffn, "vocab_size": cfg.vocab_padded}
    config, dropped = make_config(config_class, kw)
    for key, value in expect.items():
        if getattr(config, key, None) != value:
            raise RuntimeError(f"{config_class.__name__}.{key} is {getattr(config, key, None)!r} "
                               f"after construction, expected {value!r}")
    return config, model_class, dropped


def construct_on(device, build):
    """build() with new tensors created on device where torch allows (2.0+: no slow CPU init of
    a billion parameters and copy), else on the CPU and then moved."""
    if hasattr(torch.device, "__enter__"):
        with torch.device(device):
            return build().to(device)
    return build().to(device)


def build_transformers(transformers, cfg, device):
    config, model_class, dropped = hf_config(transformers, cfg)
    attn = "sdpa" if cfg.attention == "flash" else "eager"

    def build():
        try:  # transformers >= 4.36: the documented way to pick the attention implementation
            return model_class._from_config(config, attn_implementation=attn)
        except (TypeError, AttributeError):
            try:
                config._attn_implementation = attn
            except AttributeError:  # a read-only property: its backing field
                config._attn_implementation_internal = attn
            return model_class(config)

    model = construct_on(device, build)
    if any(p.dtype != torch.float32 for p in model.parameters()):
        model = model.float()  # fp32 master parameters whatever transformers' default dtype
    used = getattr(model.config, "_attn_implementation", None)
    gqa = None
    if cfg.kv_heads != cfg.heads:  # what transformers' sdpa path does (not observed: assumed)
        gqa = "enable_gqa" if used == "sdpa" and common.sdpa_has_enable_gqa() else "repeat_kv"
    info = {"implementation": f"transformers:{model_class.__name__}",
            "attention_implementation": used, "gqa": gqa,
            "transformers_config": {k: v for k, v in config.to_dict().items()
                                    if isinstance(v, (int, float, str, bool, type(None), dict))}}
    if cfg.family == "gpt2":
        info["gelu"] = config.activation_function
    if dropped:
        info["implementation_note"] = f"config keys not taken by this transformers: {dropped}"
    if used != attn:
        info["implementation_note"] = f"asked for attention {attn}, transformers uses {used}"

    def loss(ids):
        return model(input_ids=ids, labels=ids, use_cache=False).loss

    return model, loss, info


def choose_impl(cfg, requested, transformers):
    """'transformers' or 'native', and a note when auto did not get transformers."""
    blocker = hf_unrepresentable(cfg)
    if requested == "native":
        return "native", None
    if requested == "transformers":
        if transformers is None:
            raise RuntimeError("--impl transformers: transformers is not importable here")
        if blocker:
            field, value, why = blocker
            raise ScenarioError(f"{cfg.file}: {field}: {value!r}: {why}")
        return "transformers", None
    if transformers is None:
        return "native", "transformers not importable: native model"
    if blocker:
        return "native", f"{blocker[0]} = {blocker[1]!r}: {blocker[2]}"
    return "transformers", None


# --------------------------------------------------------------------------------------------
# The step, its timing and its profile.

def make_optimizer(params, device):
    """AdamW(lr 1e-4): fused where this torch and device have it (CUDA), else foreach, else the
    for-loop form. Returns the optimizer and what it is."""
    signature = inspect.signature(torch.optim.AdamW).parameters
    tried = []
    for kind in ("fused", "foreach"):
        if kind not in signature or (kind == "fused" and device.type != "cuda"):
            tried.append(f"{kind}: not offered here")
            continue
        try:
            return torch.optim.AdamW(params, lr=1e-4, **{kind: True}), f"AdamW({kind}=True)", tried
        except (RuntimeError, ValueError, TypeError) as e:
            tried.append(f"{kind}: {e}")
    return torch.optim.AdamW(params, lr=1e-4), "AdamW(for-loop)", tried


def make_step(loss_fn, params, optimizer, ids, device, clip):
    def step():
        with torch.autocast(device_type=device.type, dtype=torch.bfloat16):
            loss = loss_fn(ids)
        loss.backward()
        if clip > 0:
            torch.nn.utils.clip_grad_norm_(params, clip)
        optimizer.step()
        optimizer.zero_grad(set_to_none=True)
        return loss.detach()
    return step


def time_steps(step, count, device):
    """count steps, each synchronised before and after: wall-clock seconds, and CUDA-event
    seconds on cuda (None elsewhere). The last loss is returned to check it is finite."""
    events, wall, loss = [], [], None
    cuda = device.type == "cuda"
    for _ in range(count):
        common.synchronize(device)
        t0 = time.perf_counter()
        if cuda:
            start, end = torch.cuda.Event(enable_timing=True), torch.cuda.Event(enable_timing=True)
            start.record()
        loss = step()
        if cuda:
            end.record()
        common.synchronize(device)
        wall.append(time.perf_counter() - t0)
        if cuda:
            events.append(start.elapsed_time(end) / 1e3)
    return (events if cuda else None), wall, loss


def safe_name(name):
    return re.sub(r"[^A-Za-z0-9._-]", "_", name) or "scenario"


def profile_steps(step, count, device, trace_dir):
    """count steps under torch.profiler, exported as trace_dir/trace.json.gz (gzip, written via
    a temporary file; the uncompressed trace is removed). Returns the trace's path."""
    activities = [torch.profiler.ProfilerActivity.CPU]
    if device.type == "cuda":
        activities.append(torch.profiler.ProfilerActivity.CUDA)
    os.makedirs(trace_dir, exist_ok=True)
    raw = os.path.join(trace_dir, f"trace.json.raw{os.getpid()}")
    final = os.path.join(trace_dir, "trace.json.gz")
    with torch.profiler.profile(activities=activities, record_shapes=True) as prof:
        for i in range(count):
            # Named as torch.profiler's own step markers (written only under a schedule=): the
            # spans `trainsim validate-run --kineto` takes as the steps.
            with torch.profiler.record_function(f"ProfilerStep#{i}"):
                step()
            common.synchronize(device)
    try:
        prof.export_chrome_trace(raw)
        tmp = f"{final}.tmp{os.getpid()}"
        with open(raw, "rb") as src, gzip.open(tmp, "wb", compresslevel=6) as dst:
            # Kineto writes the object form ({"traceEvents": [...]}); torch builds without Kineto
            # (Debian's 1.13 on CPU) the bare array, which readers take too: wrap it, so that
            # every trace has the same form.
            array = src.read(64).lstrip().startswith(b"[")
            src.seek(0)
            if array:
                dst.write(b'{"traceEvents": ')
            shutil.copyfileobj(src, dst)
            if array:
                dst.write(b"}")
        os.replace(tmp, final)
    finally:
        for leftover in (raw, f"{final}.tmp{os.getpid()}"):
            if os.path.exists(leftover):
                os.remove(leftover)
    return final


def run_scenario(cfg, args, device, transformers, entry):
    """Builds, warms up, times and profiles one scenario, filling entry as it goes (so that a
    failure part-way keeps what was measured)."""
    impl, note = choose_impl(cfg, args.impl, transformers)
    torch.manual_seed(0)
    if device.type == "cuda":
        torch.cuda.reset_peak_memory_stats(device)
    t0 = time.perf_counter()
    if impl == "transformers":
        model, loss_fn, info = build_transformers(transformers, cfg, device)
    else:
        model, loss_fn, info = build_native(cfg, device)
    if note:
        info["implementation_note"] = note
    model.train()
    params = [p for p in model.parameters() if p.requires_grad]
    optimizer, opt_kind, opt_tried = make_optimizer(params, device)
    common.synchronize(device)
    entry.update(info)
    entry.update({"optimizer": opt_kind, "optimizer_fallbacks": opt_tried,
                  "parameters": sum(p.numel() for p in params),
                  "parameter_dtype": str(params[0].dtype).replace("torch.", ""),
                  "build_s": time.perf_counter() - t0})
    log(f"  built {entry['implementation']} ({entry['parameters']:,} parameters, attention "
        f"{entry['attention_implementation']}, {opt_kind}) in {entry['build_s']:.1f} s")

    generator = torch.Generator(device="cpu").manual_seed(1)
    ids = torch.randint(0, cfg.vocab, (cfg.micro_batch, cfg.seq_len), generator=generator)
    ids = ids.to(device)
    step = make_step(loss_fn, params, optimizer, ids, device, cfg.clip_grad)

    t0 = time.perf_counter()
    _, _, loss = time_steps(step, args.warmup, device)
    entry["warmup_s"] = time.perf_counter() - t0
    entry["loss_after_warmup"] = float(loss) if loss is not None else None
    events, wall, loss = time_steps(step, args.steps, device)
    entry.update({"step_times_event_s": events, "step_times_wall_s": wall,
                  "median_event_s": common.median(events) if events else None,
                  "median_wall_s": common.median(wall), "loss_last": float(loss)})
    if device.type == "cuda":
        entry["peak_memory_allocated_bytes"] = torch.cuda.max_memory_allocated(device)
        entry["peak_memory_reserved_bytes"] = torch.cuda.max_memory_reserved(device)
    if not math.isfinite(entry["loss_last"]):
        raise RuntimeError(f"loss is {entry['loss_last']} after {args.warmup + args.steps} steps")
    median = entry["median_event_s"] or entry["median_wall_s"]
    log(f"  median step {median * 1e3:.2f} ms over {args.steps} "
        f"({'CUDA events' if events else 'wall clock'}), loss {entry['loss_last']:.3f}")

    if args.profile_steps > 0:
        t0 = time.perf_counter()
        try:
            path = profile_steps(step, args.profile_steps, device,
                                 os.path.join(args.out, safe_name(cfg.name)))
            entry["trace"] = os.path.relpath(path, args.out)
            entry["trace_bytes"] = os.path.getsize(path)
        except Exception:  # noqa: BLE001 - the timings stand without a trace
            entry["trace"] = None
            entry["trace_error"] = traceback.format_exc()
            log(f"  profile failed:\n{entry['trace_error']}")
        entry["profile_s"] = time.perf_counter() - t0


def run_with_fallback(cfg, args, device, transformers, entry):
    """run_scenario; under --impl auto, a failure of the transformers model (an API this
    script assumed and could not test off the GPU machine) is recorded and the native model
    measured instead: one device session must not come back empty."""
    try:
        run_scenario(cfg, args, device, transformers, entry)
        return
    except Exception:  # noqa: BLE001
        if args.impl != "auto" or transformers is None:
            raise
        first = traceback.format_exc()
    # Outside the except block: the traceback no longer holds the failed model's tensors.
    log(f"  transformers failed; the native model instead:\n{first}")
    free_memory(device)
    entry.clear()
    entry.update(new_entry(cfg.file))
    describe(cfg, entry)
    entry["transformers_error"] = first
    run_scenario(cfg, argparse.Namespace(**dict(vars(args), impl="native")), device, transformers,
                 entry)


def new_entry(path):
    return {"name": os.path.splitext(os.path.basename(path))[0], "file": path, "status": "error",
            "error": None}


def describe(cfg, entry):
    flops = model_flops(cfg)
    entry.update({
        "name": cfg.name, "family": cfg.family,
        "model": {k: v for k, v in dataclasses.asdict(cfg).items() if k not in ("name", "file")},
        "micro_batch": cfg.micro_batch, "seq_len": cfg.seq_len, "tokens_per_step": cfg.tokens,
        "autocast_dtype": "bfloat16", "clip_grad": cfg.clip_grad,
        "model_flops": flops, "model_flops_per_step": flops["total_dense"]})


def free_memory(device):
    gc.collect()
    if device.type == "cuda":
        torch.cuda.empty_cache()


def import_transformers(impl):
    if impl == "native":
        return None, None
    try:
        import transformers  # noqa: PLC0415
        return transformers, None
    except Exception as e:  # noqa: BLE001 - absent or broken: the native models serve
        return None, f"{type(e).__name__}: {e}"


def parse_args(argv):
    p = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    p.add_argument("scenarios", nargs="+", metavar="SCENARIO.yaml")
    p.add_argument("--out", required=True, help="output folder (steps.json, NAME/trace.json.gz)")
    p.add_argument("--device", default="cuda", choices=("cuda", "cpu"))
    p.add_argument("--impl", default="auto", choices=("auto", "transformers", "native"))
    p.add_argument("--warmup", type=int, default=5, help="untimed steps first (default 5)")
    p.add_argument("--steps", type=int, default=10, help="timed steps (default 10)")
    p.add_argument("--profile-steps", type=int, default=3,
                   help="profiled steps (default 3; 0: none)")
    p.add_argument("--tiny", action="store_true", help="shrink every model (the CPU test)")
    args = p.parse_args(argv)
    for name in ("warmup", "profile_steps"):
        if getattr(args, name) < 0:
            p.error(f"--{name.replace('_', '-')}: expected >= 0, got {getattr(args, name)}")
    if args.steps < 1:
        p.error(f"--steps: expected >= 1, got {args.steps}")
    return args


def main(argv):
    args = parse_args(argv)
    device = common.open_device(args.device, "train_step")
    if device is None:
        return 2
    os.makedirs(args.out, exist_ok=True)
    out_json = os.path.join(args.out, "steps.json")
    transformers, transformers_error = import_transformers(args.impl)
    env = common.environment(device, {
        "transformers": getattr(transformers, "__version__", None),
        "transformers_import_error": transformers_error,
        "cuda_matmul_allow_tf32": getattr(torch.backends.cuda.matmul, "allow_tf32", None)})
    result = {"schema": SCHEMA, "environment": env,
              "settings": {"device": args.device, "impl": args.impl, "warmup": args.warmup,
                           "steps": args.steps, "profile_steps": args.profile_steps,
                           "tiny": args.tiny},
              "scenarios": []}
    common.write_json_atomic(out_json, result)
    log(f"train_step: torch {torch.__version__}, transformers {env['transformers']}, "
        f"{env['device_name']}, {len(args.scenarios)} scenarios -> {out_json}")

    failed = 0
    for path in args.scenarios:
        entry = new_entry(path)
        result["scenarios"].append(entry)
        t0 = time.perf_counter()
        try:
            cfg = read_scenario(path)
            if args.tiny:
                cfg = shrink(cfg)
            describe(cfg, entry)
            log(f"{cfg.name}: {cfg.family}, {cfg.layers} layers, hidden {cfg.hidden}, micro batch "
                f"{cfg.micro_batch} x {cfg.seq_len} tokens")
            run_with_fallback(cfg, args, device, transformers, entry)
            entry["status"] = "ok"
        except ScenarioError as e:
            entry["error"] = str(e)
        except Exception:  # noqa: BLE001 - record it, go on with the next scenario
            entry["error"] = traceback.format_exc()
        entry["seconds"] = time.perf_counter() - t0
        if entry["status"] != "ok":
            failed += 1
            log(f"{entry['name']}: error: {entry['error']}")
        free_memory(device)
        common.write_json_atomic(out_json, result)
    log(f"train_step: {len(args.scenarios) - failed} ok, {failed} failed; {out_json}")
    return 1 if failed else 0


if __name__ == "__main__":
    sys.exit(main(sys.argv[1:]))
