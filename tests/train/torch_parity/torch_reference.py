#!/usr/bin/python3
"""PyTorch reference runs for the TrainingSession parity test.

Run with Debian's /usr/bin/python3 (python3-torch from apt, installed by
platforms/linux/setup-debian.sh); the pyenv python3 on PATH has no torch.
CMake passes it as $MOTE_TORCH_PYTHON. Without torch this script FAILS
(exit 1) with a message: the parity test must not pass by skipping.

For each model (mlp, cnn) and optimizer (sgd, adamw) it writes into
OUTDIR/<model>_<optimizer>/:
  x.npy                  f32   the batch (the same every step)
  labels.npy             i64   class indices
  init.<param>.npy       f32   seeded torch initialisation
  final.<param>.npy      f64   the parameters after STEPS steps
  losses.npy             f64   [STEPS] the loss of each step, before its update
  lr.npy                 f64   [STEPS] the learning rate of each step

Why the reference runs in float64: Mote computes in float32, and so would a
float32 torch run, but the two sum in different orders (blocked GEMMs,
im2col vs direct convolution, reductions), so each carries its own rounding
of the same size. Comparing f32 against f32 would test that two different
roundings agree. Starting float64 torch from exactly the same f32 values
(the conversion is exact) gives the rounding-free result, and Mote's
distance from it is only Mote's own f32 error (~1e-6 relative here), far
inside the 1e-4 the test allows; a wrong gradient or update formula is off by
orders of magnitude more.

The hyperparameters below are repeated in torch_parity_test.cpp (kept side
by side on purpose; the per-step lr.npy and losses.npy catch any drift).

Usage: torch_reference.py OUTDIR
"""
import math
import os
import sys

try:
    import numpy as np
    import torch
    import torch.nn as nn
    import torch.nn.functional as F
except ImportError as e:  # not 77: CI installs python3-torch, so this is a failure
    sys.exit(f"torch_reference.py: {sys.executable} cannot import torch/numpy ({e}); "
             "install python3-torch (platforms/linux/setup-debian.sh) or set MOTE_TORCH_PYTHON")

STEPS = 10
# Cosine schedule with linear warm-up, mote::scheduled_learning_rate's
# formula (runtime/train/schedule.cpp) written as a LambdaLR factor.
WARMUP_STEPS = 3
TOTAL_STEPS = STEPS
MIN_LR_FRACTION = 0.1  # min_lr = 0.1 * lr
OPTIMIZERS = {
    "sgd": dict(lr=0.1, momentum=0.9, weight_decay=1e-3),
    "adamw": dict(lr=0.01, betas=(0.9, 0.999), eps=1e-8, weight_decay=1e-2),
}


def lr_factor(step):
    """scheduled_learning_rate(base, cosine + warm-up, step) / base."""
    if step < WARMUP_STEPS:
        return (step + 1) / WARMUP_STEPS
    span = max(TOTAL_STEPS - WARMUP_STEPS, 1)
    progress = min(1.0, (step - WARMUP_STEPS) / span)
    return MIN_LR_FRACTION + (1.0 - MIN_LR_FRACTION) * 0.5 * (1.0 + math.cos(math.pi * progress))


class Mlp(nn.Module):
    """Linear(20,32)-ReLU-Linear(32,5); batch 16."""
    batch, input_shape, classes = 16, (20,), 5

    def __init__(self):
        super().__init__()
        self.fc1 = nn.Linear(20, 32)
        self.fc2 = nn.Linear(32, 5)

    def forward(self, x):
        return self.fc2(F.relu(self.fc1(x)))


class Cnn(nn.Module):
    """Conv(1,4,3,pad 1)-ReLU-MaxPool(2)-Conv(4,8,3)-ReLU-GlobalAvgPool-Flatten-Linear(8,5); batch 8, 1x10x10."""
    batch, input_shape, classes = 8, (1, 10, 10), 5

    def __init__(self):
        super().__init__()
        self.conv1 = nn.Conv2d(1, 4, 3, padding=1)
        self.conv2 = nn.Conv2d(4, 8, 3)
        self.fc = nn.Linear(8, 5)

    def forward(self, x):
        h = F.max_pool2d(F.relu(self.conv1(x)), 2)
        h = F.adaptive_avg_pool2d(F.relu(self.conv2(h)), 1)
        return self.fc(torch.flatten(h, 1))


MODELS = {"mlp": Mlp, "cnn": Cnn}


def save(path, array):
    np.save(path, np.ascontiguousarray(array))


def run_case(out_dir, model_name, opt_name, seed):
    torch.manual_seed(seed)
    cls = MODELS[model_name]
    model = cls()  # torch's default (Kaiming-uniform) initialisation, in f32
    x = torch.randn(cls.batch, *cls.input_shape, dtype=torch.float32)
    labels = torch.randint(0, cls.classes, (cls.batch,), dtype=torch.int64)

    case_dir = os.path.join(out_dir, f"{model_name}_{opt_name}")
    os.makedirs(case_dir, exist_ok=True)
    save(os.path.join(case_dir, "x.npy"), x.numpy())
    save(os.path.join(case_dir, "labels.npy"), labels.numpy())
    for name, p in model.named_parameters():
        save(os.path.join(case_dir, f"init.{name}.npy"), p.detach().numpy())

    model = model.double()  # exact: every f32 is an f64
    x64 = x.double()
    hp = OPTIMIZERS[opt_name]
    if opt_name == "sgd":
        opt = torch.optim.SGD(model.parameters(), **hp)
    else:
        opt = torch.optim.AdamW(model.parameters(), **hp)
    sched = torch.optim.lr_scheduler.LambdaLR(opt, lr_factor)
    losses, lrs = [], []
    for _ in range(STEPS):
        lrs.append(opt.param_groups[0]["lr"])
        opt.zero_grad()
        loss = F.cross_entropy(model(x64), labels)  # mean over the batch
        loss.backward()
        opt.step()
        sched.step()
        losses.append(loss.item())
    save(os.path.join(case_dir, "losses.npy"), np.array(losses, dtype=np.float64))
    save(os.path.join(case_dir, "lr.npy"), np.array(lrs, dtype=np.float64))
    for name, p in model.named_parameters():
        save(os.path.join(case_dir, f"final.{name}.npy"), p.detach().numpy())
    print(f"{model_name}_{opt_name}: loss {losses[0]:.6f} -> {losses[-1]:.6f}")


def main():
    if len(sys.argv) != 2:
        sys.exit("usage: torch_reference.py OUTDIR")
    out_dir = sys.argv[1]
    torch.use_deterministic_algorithms(True)
    for seed, model_name in enumerate(MODELS):
        for opt_name in OPTIMIZERS:
            run_case(out_dir, model_name, opt_name, seed + 1)


if __name__ == "__main__":
    main()
