#!/usr/bin/python3
"""scikit-learn's CalibratedClassifierCV(Perceptron) on the splits of the calibration benchmark.

The reference of BENCHMARKS.md, issue 33: for every data set of `submit/bench --sections
calibration` (the shared data sets in data-samples/, and the generated ones that section writes
to OUT/calibration-data/NAME/{train,test}.libsvm), it fits scikit-learn's
CalibratedClassifierCV(Perceptron(), method=M, cv=3) for M = sigmoid and isotonic on the training
file and reports log-loss, Brier score and expected calibration error on the test file, defined
as the Java benchmark defines them (io.github.sparkperceptron.evaluation.ProbabilityMetrics):

    log-loss  mean of -log p_y, p_y clipped to [1e-15, 1 - 1e-15]
    Brier     binary: mean of (p_1 - y)^2; K classes: mean of sum_k (p_k - [y = k])^2
    ECE       15 equal-width bins of the confidence max_k p_k, bin b holding (b/15, (b+1)/15]:
              sum_b (n_b / n) |accuracy_b - mean confidence_b| (Guo et al. 2017)

Run after the Java section (it needs the generated files), from the repository root:

    apt-get install -y python3-sklearn      # Debian's scikit-learn (1.2.1 on Debian 12)
    /usr/bin/python3 src/bench/python/calibrated_perceptron.py [OUT]   # OUT: target/bench

It writes OUT/calibration-sklearn.md (a table per data set) and OUT/calibration-sklearn.csv.
Perceptron keeps scikit-learn's defaults (max_iter=1000, tol=1e-3, no averaging) with
random_state=0; CalibratedClassifierCV keeps ensemble=True (the mean of the 3 fold models'
calibrated probabilities), its default. Fit times are wall seconds of one fit on this machine.
"""

import sys
import time
from pathlib import Path

import numpy as np
import sklearn
from sklearn.calibration import CalibratedClassifierCV
from sklearn.datasets import load_svmlight_file
from sklearn.linear_model import Perceptron

REPO = Path(__file__).resolve().parents[3]
SHARED = ["breast_cancer", "skin_nonskin", "spark_sample_libsvm", "iris", "pendigits"]
GENERATED = ["gen-dense-binary", "gen-sparse-binary", "gen-dense-10-class"]
BINS = 15
EPS = 1e-15


def data_file(directory, name):
    plain = directory / name
    gz = directory / (name + ".gz")
    return plain if plain.exists() or not gz.exists() else gz


def load(directory):
    train = data_file(directory, "train.libsvm")
    test = data_file(directory, "test.libsvm")
    x, y = load_svmlight_file(str(train))
    xt, yt = load_svmlight_file(str(test), n_features=x.shape[1])
    return x, y.astype(int), xt, yt.astype(int)


def metrics(p, y):
    n, k = p.shape
    p_y = np.clip(p[np.arange(n), y], EPS, 1 - EPS)
    log_loss = -np.mean(np.log(p_y))
    if k == 2:
        brier = np.mean((p[:, 1] - y) ** 2)
    else:
        onehot = np.zeros_like(p)
        onehot[np.arange(n), y] = 1
        brier = np.mean(np.sum((p - onehot) ** 2, axis=1))
    confidence = p.max(axis=1)
    right = (p.argmax(axis=1) == y).astype(float)
    bins = np.clip(np.ceil(confidence * BINS).astype(int) - 1, 0, BINS - 1)
    ece = 0.0
    for b in range(BINS):
        inside = bins == b
        if inside.any():
            ece += abs(right[inside].sum() - confidence[inside].sum()) / n
    return log_loss, brier, ece, right.mean()


def main():
    out = Path(sys.argv[1]) if len(sys.argv) > 1 else REPO / "target" / "bench"
    sets = [(name, REPO / "data-samples" / name) for name in SHARED]
    sets += [(name, out / "calibration-data" / name) for name in GENERATED]
    md = ["## scikit-learn CalibratedClassifierCV(Perceptron) (issue 33)\n",
          f"scikit-learn {sklearn.__version__}, numpy {np.__version__}; Perceptron(random_state=0),"
          " cv=3, ensemble=True; metrics on each set's test rows.\n"]
    csv = ["dataset,method,log_loss,brier,ece,accuracy,fit_seconds"]
    for name, directory in sets:
        if not (directory / "train.libsvm").exists() and not (directory / "train.libsvm.gz").exists():
            print(f"skipping {name}: no {directory}/train.libsvm (run the Java section first)",
                  file=sys.stderr)
            continue
        x, y, xt, yt = load(directory)
        md.append(f"\n### {name} ({x.shape[0]:,} x {x.shape[1]:,}, K={len(np.unique(y))})\n")
        md.append("| method | log-loss | Brier | ECE | accuracy | fit s |")
        md.append("|---|---:|---:|---:|---:|---:|")
        for method in ["sigmoid", "isotonic"]:
            model = CalibratedClassifierCV(Perceptron(random_state=0), method=method, cv=3)
            start = time.perf_counter()
            model.fit(x, y)
            seconds = time.perf_counter() - start
            p = model.predict_proba(xt)
            log_loss, brier, ece, accuracy = metrics(p, yt)
            label = f"CalibratedClassifierCV(Perceptron, {method}, cv=3)"
            md.append(f"| {label} | {log_loss:.4f} | {brier:.4f} | {ece:.4f} | {accuracy:.4f} |"
                      f" {seconds:.2f} |")
            csv.append(f"{name},{method},{log_loss!r},{brier!r},{ece!r},{accuracy!r},{seconds!r}")
            print(f"{name} {method}: log-loss {log_loss:.4f}, Brier {brier:.4f}, ECE {ece:.4f}",
                  file=sys.stderr)
    out.mkdir(parents=True, exist_ok=True)
    (out / "calibration-sklearn.md").write_text("\n".join(md) + "\n")
    (out / "calibration-sklearn.csv").write_text("\n".join(csv) + "\n")
    print(f"wrote {out / 'calibration-sklearn.md'}", file=sys.stderr)


if __name__ == "__main__":
    main()
