#!/usr/bin/python3
"""Exports the multi-input real-model cases of check_real_models.py to ONNX.

Run with the torch Python (/usr/bin/python3 on Debian 12, python3-torch and
python3-torchvision from apt). Random weights from a fixed seed; legacy
TorchScript exporter; every shape static.

  kws_lstm   keyword spotting on MFCC frames: 2-layer LSTM (hidden 64) over
             40 MFCC coefficients per 10 ms frame, a linear head to 12
             classes per frame. Inputs input [1, 10, 40] (a 100 ms chunk),
             h0 and c0 [2, 1, 64]; outputs output [1, 10, 12], hn, cn. A
             stream feeds hn and cn back as the next chunk's h0 and c0.
  vit_tiny   a small ViT: 8x8 patches of a 1x3x32x32 image (Conv stride 8),
             class token, learned position embedding, 2 encoder layers
             (d_model 64, 4 heads, GELU, pre-norm), LayerNorm, linear head
             to 10 classes.
  ssdlite    torchvision's ssdlite320_mobilenet_v3_large (91 classes), input
             one 3x320x320 image (CHW); its post-processing (score threshold, top-k,
             batched NonMaxSuppression) is part of the graph. Outputs boxes
             [N, 4], scores [N], labels [N], N decided by the data.

Usage: export_real_models.py OUTDIR [--models kws_lstm,vit_tiny,ssdlite]
Writes OUTDIR/NAME.onnx and OUTDIR/manifest.json (input names and shapes).
"""
import argparse
import inspect
import json
import os
import sys
import time

import torch
import torch.nn as nn
import torchvision


class KeywordSpotter(nn.Module):
    def __init__(self, mfcc=40, hidden=64, layers=2, classes=12):
        super().__init__()
        self.lstm = nn.LSTM(mfcc, hidden, num_layers=layers, batch_first=True)
        self.head = nn.Linear(hidden, classes)

    def forward(self, x, h0, c0):
        y, (hn, cn) = self.lstm(x, (h0, c0))
        return self.head(y), hn, cn


class TinyViT(nn.Module):
    def __init__(self, image=32, patch=8, dim=64, heads=4, layers=2, classes=10):
        super().__init__()
        self.patches = nn.Conv2d(3, dim, patch, stride=patch)
        count = (image // patch) ** 2
        self.cls = nn.Parameter(torch.randn(1, 1, dim) * 0.02)
        self.pos = nn.Parameter(torch.randn(1, count + 1, dim) * 0.02)
        layer = nn.TransformerEncoderLayer(dim, heads, dim_feedforward=2 * dim, dropout=0.0, activation="gelu",
                                           batch_first=True, norm_first=True)
        kwargs = {}
        if "enable_nested_tensor" in inspect.signature(nn.TransformerEncoder).parameters:
            kwargs["enable_nested_tensor"] = False
        self.encoder = nn.TransformerEncoder(layer, layers, **kwargs)
        self.norm = nn.LayerNorm(dim)
        self.head = nn.Linear(dim, classes)

    def forward(self, x):
        tokens = self.patches(x).flatten(2).transpose(1, 2)
        tokens = torch.cat([self.cls.expand(x.shape[0], -1, -1), tokens], dim=1) + self.pos
        return self.head(self.norm(self.encoder(tokens))[:, 0])


def ssdlite():
    ctor = torchvision.models.detection.ssdlite320_mobilenet_v3_large
    params = inspect.signature(ctor).parameters
    kwargs = {"weights": None, "weights_backbone": None} if "weights" in params else {"pretrained": False,
                                                                                     "pretrained_backbone": False}
    model = ctor(**kwargs)
    # Random weights with default BatchNorm statistics leave the features
    # near zero: every score is then about 1/91 and the ranking of detections
    # depends on differences at float rounding. BatchNorm statistics from a
    # training-mode pass and wider head weights spread the scores, so the
    # comparison tests the graph rather than rounding order.
    generator = torch.Generator().manual_seed(2)
    with torch.no_grad():
        for m in model.head.modules():
            if isinstance(m, nn.Conv2d):
                m.weight.normal_(0.0, 0.1, generator=generator)
        for m in model.modules():
            if isinstance(m, nn.modules.batchnorm._BatchNorm):
                m.reset_running_stats()
                m.momentum = None
        model.backbone.train()
        model.head.train()
        features = model.backbone(torch.rand(4, 3, 320, 320, generator=generator) * 2 - 1)
        model.head(list(features.values()))
    return model


# name: (builder, {input: shape}, output names, opset)
MODELS = {
    "kws_lstm": (KeywordSpotter, {"input": [1, 10, 40], "h0": [2, 1, 64], "c0": [2, 1, 64]},
                 ["output", "hn", "cn"], 17),
    "vit_tiny": (TinyViT, {"input": [1, 3, 32, 32]}, ["output"], 17),
    "ssdlite": (ssdlite, {"input": [3, 320, 320]}, ["boxes", "scores", "labels"], 17),
}


def main():
    parser = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    parser.add_argument("outdir")
    parser.add_argument("--models", default=",".join(MODELS))
    args = parser.parse_args()
    os.makedirs(args.outdir, exist_ok=True)
    torch.set_num_threads(2)
    manifest = {}
    for name in args.models.split(","):
        if name not in MODELS:
            sys.exit(f"export_real_models.py: unknown model '{name}' (known: {', '.join(MODELS)})")
        build, inputs, outputs, opset = MODELS[name]
        start = time.time()
        torch.manual_seed(0)
        model = build().eval()
        generator = torch.Generator().manual_seed(1)
        examples = tuple(torch.randn(shape, generator=generator) for shape in inputs.values())
        if name == "ssdlite":
            examples = ([examples[0]],)  # torchvision detectors take a list of CHW images
        kwargs = dict(opset_version=opset, input_names=list(inputs), output_names=outputs, do_constant_folding=True)
        if "dynamo" in inspect.signature(torch.onnx.export).parameters:
            kwargs["dynamo"] = False
        path = os.path.join(args.outdir, f"{name}.onnx")
        torch.onnx.export(model, examples, path, **kwargs)
        manifest[name] = {"file": f"{name}.onnx", "inputs": inputs, "outputs": outputs, "opset": opset,
                          "torch": torch.__version__, "torchvision": torchvision.__version__}
        print(f"exported {name} in {time.time() - start:.1f} s", flush=True)
    with open(os.path.join(args.outdir, "manifest.json"), "w", encoding="utf-8") as f:
        json.dump(manifest, f, indent=1)


if __name__ == "__main__":
    main()
