#!/usr/bin/python3
"""Reference weights from scikit-learn for ScikitLearnReferenceTest.

Rerun (from anywhere; paths are resolved from this file's location):

    apt-get install -y python3-sklearn      # Debian's scikit-learn
    /usr/bin/python3 src/test/resources/reference/sklearn_reference.py

Generated with scikit-learn 1.2.1, numpy 1.24.2, scipy 1.10.1 (Debian 12 python3-sklearn,
Python 3.11.2). Use /usr/bin/python3: a pyenv `python3` on PATH may lack scikit-learn.

It trains scikit-learn's Perceptron and PassiveAggressiveClassifier on
data-samples/breast_cancer/train.libsvm (relative to the repository root), in file order, and
writes sklearn_breast_cancer.csv next to this script, one line per model:

    name,fit_intercept,eta_or_C,n_iter,intercept,w1,...,w30

every float written with repr(), the shortest string that parses back to the same double.

What was confirmed about scikit-learn's conventions (sklearn/linear_model/_sgd_fast.pyx(.tp),
function _plain_sgd, and sklearn/utils/_weight_vector.pyx.tp, read in the scikit-learn
repository; the installed Debian package ships only the compiled .so, so `replay` below re-does
the same arithmetic in plain Python and the script stops unless it matches the compiled code bit
for bit):

(a) Perceptron is SGDClassifier(loss="perceptron", learning_rate="constant"), and "perceptron" is
    Hinge(threshold=0.0). Per example, in file order:
        p = w.dot(x) + intercept                 # WeightVector.dot: sum_j w[j]*x[j], then *wscale
        dloss = -y if p*y <= 0 else 0            # Hinge._dloss: `if z <= self.threshold`
        update = -eta * dloss                    # = eta*y exactly (negation is exact)
        update *= class_weight * sample_weight   # 1.0 * 1.0 here
        if update != 0.0:
            w.add(x, update)                     # w[j] += x[j] * (update / wscale)
        intercept += update * intercept_decay    # only when fit_intercept
    so an update happens on a zero margin (p*y <= 0). intercept_decay comes from make_dataset()
    in sklearn/linear_model/_base.py: 1.0 for dense X, SPARSE_INTERCEPT_DECAY = 0.01 for sparse
    X. We therefore feed X.toarray(): with the CSR matrix load_svmlight_file returns, the
    intercept would move 100 times more slowly than the weights.
    Binary labels: _prepare_fit_binary sets y_i = +1 for classes_[1] (label 1), -1 otherwise, and
    coef_ is that single weight vector: the same orientation as ours (label 1 = positive margin).
(b) PassiveAggressiveClassifier passes loss="hinge" to _fit for BOTH variants (loss="hinge"
    only selects learning_rate "pa1", loss="squared_hinge" selects "pa2"), so the loss is always
    Hinge(threshold=1.0): l = 1 - p*y when p*y <= 1, else 0. Then
        PA1: update = min(C, l / sqnorm(x))        (skips the example when sqnorm(x) == 0)
        PA2: update = l / (sqnorm(x) + 0.5 / C)
        update *= y
    sqnorm(x) sums x[j]*x[j] over the stored features only: it does NOT include the constant 1
    of the intercept, whereas Crammer et al. (and our pa1/pa2 with fitIntercept=true) use
    ||x||^2 + 1. So the PA models here use fit_intercept=False on both sides.
    Ours computes 1/(2C) where sklearn computes 0.5/C: for C = 0.1 both are exactly 5.0.
(c) tol=None becomes tol = -inf (_fit_binary: `tol = est.tol if est.tol is not None else
    -np.inf`), and the only stopping test in the epoch loop is guarded by `tol > -INFINITY`, so
    no_improvement_count stays 0 and every one of max_iter epochs runs: n_iter_ == max_iter
    (checked below and written to the CSV). No ConvergenceWarning is raised either (it is
    issued only when tol is not None).
    penalty=None gives penalty_type 0 (PENALTY_TYPES["none"]); w.scale(), the only code that
    changes wscale, runs only `if penalty_type >= L2`, so wscale stays 1.0: w.dot multiplies
    by 1.0, w.add divides by 1.0, and the final w.reset_wscale() multiplies by 1.0, all exact.
    average=False, shuffle=False (ArrayDataset visits rows 0..n-1 every epoch), no
    early_stopping (no validation split), class_weight=None and unit sample weights.
"""

import sys
from pathlib import Path

import numpy as np
import scipy
import sklearn
from sklearn.datasets import load_svmlight_file
from sklearn.linear_model import PassiveAggressiveClassifier, Perceptron

HERE = Path(__file__).resolve().parent
REPO = HERE.parents[3]
# The file TestData.sharedData gives the test.
TRAIN = REPO / "data-samples" / "breast_cancer" / "train.libsvm"
OUT = HERE / "sklearn_breast_cancer.csv"
D = 30
EPOCHS = 5

# (name, estimator, fit_intercept, eta_or_C, rule for replay)
MODELS = [
    ("perceptron", Perceptron(penalty=None, eta0=1.0, fit_intercept=True, max_iter=EPOCHS,
                              tol=None, shuffle=False), True, 1.0, "perceptron"),
    ("perceptron", Perceptron(penalty=None, eta0=0.5, fit_intercept=False, max_iter=EPOCHS,
                              tol=None, shuffle=False), False, 0.5, "perceptron"),
    ("pa1", PassiveAggressiveClassifier(C=0.1, loss="hinge", fit_intercept=False,
                                        max_iter=EPOCHS, tol=None, shuffle=False,
                                        average=False), False, 0.1, "pa1"),
    ("pa2", PassiveAggressiveClassifier(C=0.1, loss="squared_hinge", fit_intercept=False,
                                        max_iter=EPOCHS, tol=None, shuffle=False,
                                        average=False), False, 0.1, "pa2"),
]


def replay(X, labels, rule, fit_intercept, param, epochs):
    """_plain_sgd's arithmetic for these settings, in plain Python floats (IEEE doubles)."""
    w = [0.0] * X.shape[1]
    b = 0.0
    rows = [[float(v) for v in row] for row in X]
    for _ in range(epochs):
        for x, label in zip(rows, labels):
            y = 1.0 if label == 1 else -1.0
            p = 0.0
            for wj, xj in zip(w, x):
                p += wj * xj
            p *= 1.0  # wscale
            p += b
            if rule == "perceptron":
                update = -param * (-y) if p * y <= 0.0 else 0.0
            else:
                z = p * y
                loss = 1.0 - z if z <= 1.0 else 0.0
                sq = 0.0
                for xj in x:
                    sq += xj * xj
                if rule == "pa1":
                    if sq == 0:
                        continue
                    update = min(param, loss / sq)
                else:
                    update = loss / (sq + 0.5 / param)
                update *= y
            update *= 1.0 * 1.0  # class_weight * sample_weight
            if update != 0.0:
                w = [wj + xj * (update / 1.0) for wj, xj in zip(w, x)]
                if fit_intercept:
                    b += update * 1.0  # intercept_decay, dense input
    return w, b


def main():
    X_sparse, y = load_svmlight_file(str(TRAIN), n_features=D)
    X = X_sparse.toarray()  # dense: intercept_decay 1.0, see (a)
    lines = ["# name,fit_intercept,eta_or_C,n_iter,intercept,w1..w30 -- written by "
             "sklearn_reference.py with scikit-learn " + sklearn.__version__
             + ", numpy " + np.__version__ + ", scipy " + scipy.__version__
             + "; training file " + TRAIN.name + " of breast_cancer, "
             + str(X.shape[0]) + " rows in file order"]
    for name, est, fit_intercept, param, rule in MODELS:
        est.fit(X, y)
        assert list(est.classes_) == [0.0, 1.0], est.classes_
        n_iter = int(est.n_iter_)
        if n_iter != EPOCHS:
            sys.exit(f"{name}: sklearn ran {n_iter} epochs, expected max_iter={EPOCHS}")
        w = [float(v) for v in est.coef_.ravel()]
        b = float(est.intercept_[0])
        rw, rb = replay(X, y, rule, fit_intercept, param, n_iter)
        if rw != w or rb != b:
            diff = max(abs(a - c) for a, c in zip(rw + [rb], w + [b]))
            sys.exit(f"{name}: plain-Python replay differs from sklearn by {diff!r}; "
                     "the conventions in the header no longer describe this scikit-learn")
        lines.append(",".join([name, "true" if fit_intercept else "false", repr(param),
                               str(n_iter), repr(b)] + [repr(v) for v in w]))
        print(f"{name} fit_intercept={fit_intercept} eta_or_C={param} n_iter_={n_iter} "
              f"intercept={b!r} (replay identical)")
    OUT.write_text("\n".join(lines) + "\n")
    print("wrote", OUT)


if __name__ == "__main__":
    main()
