#!/usr/bin/python3
"""Exports real architectures to ONNX for the mote-convert model tests.

Run with a Python that has torch and torchvision: on Debian 12 that is
/usr/bin/python3 with python3-torch and python3-torchvision from apt (the
pyenv python3 has no torch). check_models.py runs it as $MOTE_TORCH_PYTHON.

Every model has random weights from a fixed seed. BatchNorm running
statistics are set from one forward pass in training mode on random inputs
(cumulative average) and its affine parameters randomised, so the folded
weights are not trivial and activations stay in a realistic range; then the
model is put in eval mode. (In eval mode the exporter folds BatchNorm into
the Conv before writing, so these files hold no BatchNormalization node.)

Each model is exported twice with the legacy TorchScript exporter
(dynamo=False where that parameter exists), opset 17:
  NAME_static.onnx   every shape fixed (batch 1)
  NAME_dynamic.onnx  dynamic batch axis (dim 0 of the input and output)
Input "input", output "output". manifest.json lists, per model, the input
shape at batch 1 and the two files.

  mobilenet_v2, mobilenet_v3_small, resnet18, squeezenet1_1,
  shufflenet_v2_x1_0, efficientnet_b0   torchvision, 1x3x224x224
  resnet50      torchvision, 1x3x224x224 (peer benchmark only)
  transformer   2-layer nn.TransformerEncoder, d_model 64, 4 heads, GELU,
                batch_first, input 1x16x64
  transformer_encoder  the peer benchmark's encoder: 4 layers, d_model 256,
                4 heads, feed-forward 1024, GELU, batch_first, input 1x128x256
  unet          small U-Net (below): ConvTranspose, bilinear and nearest
                F.interpolate (Resize), skip Concat, input 1x3x64x64

Usage: export_models.py OUTDIR [--models NAME,NAME...] [--opset 17]
                         [--variants static,dynamic]
"""
import argparse
import inspect
import json
import os
import sys
import time

import torch
import torch.nn as nn
import torch.nn.functional as F
import torchvision

OPSET = 17
IMAGE = (1, 3, 224, 224)


class ConvBlock(nn.Module):
    """Two 3x3 Conv-BN-ReLU."""

    def __init__(self, cin, cout):
        super().__init__()
        self.body = nn.Sequential(
            nn.Conv2d(cin, cout, 3, padding=1, bias=False), nn.BatchNorm2d(cout), nn.ReLU(inplace=True),
            nn.Conv2d(cout, cout, 3, padding=1, bias=False), nn.BatchNorm2d(cout), nn.ReLU(inplace=True))

    def forward(self, x):
        return self.body(x)


class SmallUNet(nn.Module):
    """Three levels. Up-sampling: a ConvTranspose (stride 2), a bilinear
    F.interpolate (align_corners False), and a nearest F.interpolate of the
    bottleneck straight to full resolution as a side branch."""

    def __init__(self, cin=3, classes=2, w=16):
        super().__init__()
        self.enc1 = ConvBlock(cin, w)
        self.enc2 = ConvBlock(w, 2 * w)
        self.mid = ConvBlock(2 * w, 4 * w)
        self.up2 = nn.ConvTranspose2d(4 * w, 2 * w, 2, stride=2)
        self.dec2 = ConvBlock(4 * w, 2 * w)
        self.reduce1 = nn.Conv2d(2 * w, w, 1)
        self.dec1 = ConvBlock(2 * w, w)
        self.side = nn.Conv2d(4 * w, classes, 1)
        self.head = nn.Conv2d(w, classes, 1)

    def forward(self, x):
        e1 = self.enc1(x)                          # w,   H
        e2 = self.enc2(F.max_pool2d(e1, 2))        # 2w,  H/2
        m = self.mid(F.max_pool2d(e2, 2))          # 4w,  H/4
        d2 = self.dec2(torch.cat([self.up2(m), e2], dim=1))
        u1 = F.interpolate(self.reduce1(d2), scale_factor=2.0, mode="bilinear", align_corners=False)
        d1 = self.dec1(torch.cat([u1, e1], dim=1))
        side = F.interpolate(self.side(m), scale_factor=4.0, mode="nearest")
        return self.head(d1) + side


class Transformer(nn.Module):
    def __init__(self, d_model=64, heads=4, layers=2, feedforward=128):
        super().__init__()
        layer = nn.TransformerEncoderLayer(d_model, heads, dim_feedforward=feedforward, dropout=0.0, activation="gelu",
                                           batch_first=True)
        kwargs = {}
        if "enable_nested_tensor" in inspect.signature(nn.TransformerEncoder).parameters:
            kwargs["enable_nested_tensor"] = False
        self.encoder = nn.TransformerEncoder(layer, layers, **kwargs)

    def forward(self, x):
        return self.encoder(x)


def torchvision_model(name):
    ctor = getattr(torchvision.models, name)
    # weights=None on torchvision >= 0.13, pretrained=False before.
    if "weights" in inspect.signature(ctor).parameters:
        return ctor(weights=None)
    return ctor(pretrained=False)


MODELS = {
    "mobilenet_v2": (lambda: torchvision_model("mobilenet_v2"), IMAGE),
    "mobilenet_v3_small": (lambda: torchvision_model("mobilenet_v3_small"), IMAGE),
    "resnet18": (lambda: torchvision_model("resnet18"), IMAGE),
    "resnet50": (lambda: torchvision_model("resnet50"), IMAGE),
    "squeezenet1_1": (lambda: torchvision_model("squeezenet1_1"), IMAGE),
    "shufflenet_v2_x1_0": (lambda: torchvision_model("shufflenet_v2_x1_0"), IMAGE),
    "efficientnet_b0": (lambda: torchvision_model("efficientnet_b0"), IMAGE),
    "transformer": (Transformer, (1, 16, 64)),
    "transformer_encoder": (lambda: Transformer(d_model=256, heads=4, layers=4, feedforward=1024), (1, 128, 256)),
    "unet": (SmallUNet, (1, 3, 64, 64)),
}


def calibrate_batchnorm(model, shape, generator):
    """Running stats from one training-mode pass (momentum None: cumulative
    average), then random affine parameters."""
    bns = [m for m in model.modules() if isinstance(m, nn.modules.batchnorm._BatchNorm)]
    if not bns:
        return
    for bn in bns:
        bn.reset_running_stats()
        bn.momentum = None
    model.train()
    with torch.no_grad():
        model(torch.randn((4,) + tuple(shape[1:]), generator=generator))
        for bn in bns:
            bn.weight.copy_(torch.empty_like(bn.weight).uniform_(0.5, 1.5, generator=generator))
            bn.bias.copy_(torch.empty_like(bn.bias).uniform_(-0.2, 0.2, generator=generator))


def export(model, example, path, dynamic, opset):
    kwargs = dict(opset_version=opset, input_names=["input"], output_names=["output"], do_constant_folding=True)
    if dynamic:
        kwargs["dynamic_axes"] = {"input": {0: "batch"}, "output": {0: "batch"}}
    if "dynamo" in inspect.signature(torch.onnx.export).parameters:
        kwargs["dynamo"] = False  # the legacy TorchScript exporter
    # Not under torch.no_grad(): with gradients off, nn.TransformerEncoderLayer
    # in eval mode takes its fused fast path (aten::_transformer_encoder_layer_fwd),
    # which has no ONNX export.
    torch.onnx.export(model, (example,), path, **kwargs)


def main():
    parser = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    parser.add_argument("outdir")
    parser.add_argument("--models", default=",".join(MODELS), help="comma-separated subset of: " + ", ".join(MODELS))
    parser.add_argument("--opset", type=int, default=OPSET)
    parser.add_argument("--variants", default="static,dynamic", help="which files to write: static, dynamic or both")
    args = parser.parse_args()
    os.makedirs(args.outdir, exist_ok=True)
    torch.set_num_threads(2)

    manifest = {}
    for name in args.models.split(","):
        if name not in MODELS:
            sys.exit(f"export_models.py: unknown model '{name}' (known: {', '.join(MODELS)})")
        build, shape = MODELS[name]
        start = time.time()
        torch.manual_seed(0)
        generator = torch.Generator().manual_seed(1)
        model = build()
        calibrate_batchnorm(model, shape, generator)
        model.eval()
        example = torch.randn(shape, generator=generator)
        files = {}
        for variant in args.variants.split(","):
            files[variant] = f"{name}_{variant}.onnx"
            export(model, example, os.path.join(args.outdir, files[variant]), variant == "dynamic", args.opset)
        manifest[name] = {"input": "input", "shape": list(shape), "files": files, "opset": args.opset,
                          "torch": torch.__version__, "torchvision": torchvision.__version__}
        print(f"exported {name} {list(shape)} in {time.time() - start:.1f} s", flush=True)
    with open(os.path.join(args.outdir, "manifest.json"), "w", encoding="utf-8") as f:
        json.dump(manifest, f, indent=1)


if __name__ == "__main__":
    main()
