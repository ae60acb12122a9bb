#!/usr/bin/python3
"""PyTorch (CPU) training throughput for the finetune example's networks, so
Mote's samples/s can be read next to a peer's on the same machine.

Runs with Debian's /usr/bin/python3 (python3-torch). Same layers, batch,
loss (cross-entropy) and optimizer (AdamW) as main.cpp; random data of the
task's shape, since only speed is measured here.

Usage: torch_throughput.py TASK [--threads N] [--steps S] [--batch B]
TASK: digits-mlp, digits-cnn or fashion-cnn.
"""
import argparse
import time

import torch
from torch import nn


def cnn(side, hidden):
    return nn.Sequential(
        nn.Conv2d(1, 16, 3, padding=1), nn.ReLU(), nn.MaxPool2d(2),
        nn.Conv2d(16, 32, 3, padding=1), nn.ReLU(), nn.MaxPool2d(2),
        nn.Flatten(), nn.Linear(32 * (side // 4) ** 2, hidden), nn.ReLU(), nn.Linear(hidden, 10))


TASKS = {
    # name: (model, input shape per sample, batch)
    "digits-mlp": (lambda: nn.Sequential(nn.Linear(64, 64), nn.ReLU(), nn.Linear(64, 10)), (64,), 50),
    "digits-cnn": (lambda: cnn(8, 64), (1, 8, 8), 50),
    "fashion-cnn": (lambda: cnn(28, 128), (1, 28, 28), 64),
}


def main():
    parser = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    parser.add_argument("task", choices=sorted(TASKS))
    parser.add_argument("--threads", type=int, default=1)
    parser.add_argument("--steps", type=int, default=200)
    parser.add_argument("--batch", type=int, default=0, help="default: the example's batch for the task")
    args = parser.parse_args()
    torch.set_num_threads(args.threads)
    torch.manual_seed(0)
    make, shape, batch = TASKS[args.task]
    batch = args.batch or batch
    model = make()
    optimizer = torch.optim.AdamW(model.parameters(), lr=1e-3, weight_decay=1e-4)
    loss_fn = nn.CrossEntropyLoss()
    x = torch.rand(batch, *shape)
    y = torch.randint(0, 10, (batch,))

    def step():
        optimizer.zero_grad(set_to_none=True)
        loss = loss_fn(model(x), y)
        loss.backward()
        optimizer.step()

    for _ in range(max(args.steps // 10, 5)):  # warm-up
        step()
    start = time.perf_counter()
    for _ in range(args.steps):
        step()
    seconds = time.perf_counter() - start
    print(f"torch {torch.__version__} {args.task}: batch {batch}, {args.threads} thread(s), "
          f"{args.steps * batch / seconds:.0f} samples/s ({1e3 * seconds / args.steps:.2f} ms/step)")


if __name__ == "__main__":
    main()
