#!/usr/bin/env python3
"""Runs the Java API's host test (JniTest.java) against the C++ API's result.

Writes the zoo's small CNN with mote-make-models and a fixed random input,
runs it with mote-run (the C++ API) into an expected-output file, then starts
the JVM on JniTest with both. Every file lives in a temporary directory that
is removed at the end. Exit 77 (skipped) without numpy.
"""
import argparse
import os
import subprocess
import sys
import tempfile

try:
    import numpy as np
except ImportError:
    print("run_jni_test: numpy is missing; skipped")
    sys.exit(77)


def main():
    p = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    p.add_argument("--java", required=True)
    p.add_argument("--classpath", required=True)
    p.add_argument("--library-dir", required=True)
    p.add_argument("--make-models", required=True)
    p.add_argument("--run", required=True)
    a = p.parse_args()
    with tempfile.TemporaryDirectory(prefix="mote_jni_") as work:
        subprocess.run([a.make_models, work, "--only", "small_cnn"], check=True, stdout=subprocess.DEVNULL)
        model = os.path.join(work, "small_cnn.mote")
        x = np.random.default_rng(7).standard_normal((1, 1, 28, 28)).astype(np.float32)
        np.save(os.path.join(work, "image.npy"), x)
        out_dir = os.path.join(work, "expected")
        subprocess.run([a.run, model, "--backend", "cpu", "--threads", "1", "--input",
                        f"image={work}/image.npy", "--output-dir", out_dir], check=True, stdout=subprocess.DEVNULL)
        cmd = [a.java, f"-Ddev.mote.library.path={a.library_dir}", "-cp", a.classpath, "dev.mote.tests.JniTest",
               model, os.path.join(work, "image.npy"), os.path.join(out_dir, "logits.npy"), work]
        sys.exit(subprocess.run(cmd).returncode)


if __name__ == "__main__":
    main()
