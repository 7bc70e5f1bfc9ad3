#!/usr/bin/python3
"""Reference calibrators from scikit-learn for CalibrationReferenceTest.

Rerun (from anywhere; paths are resolved from this file's location):

    apt-get install -y python3-sklearn      # Debian's scikit-learn
    /usr/bin/python3 src/test/resources/reference/calibration_reference.py

Generated with scikit-learn 1.2.1, numpy 1.24.2, scipy 1.10.1 (Debian 12 python3-sklearn,
Python 3.11.2). Use /usr/bin/python3: a pyenv `python3` on PATH may lack scikit-learn.

It draws four sets of classifier scores with a seeded numpy generator and writes them to
calibration_scores.csv (set,score,label,weight; every float with repr(), which parses back to the
same double), so that the test fits its calibrators on exactly these numbers:

    margins    400 scores of perceptron-like size (class 1 ~ N(10, 7), class 0 ~ N(-7, 8))
    ties       300 integer scores in -5..5 (many rows per score), labels drawn from a sigmoid
    weighted   200 scores with weights in [0.1, 3], a tenth of them 0
    separable   60 scores, every class-1 score above every class-0 score

For each set it writes to calibration_sklearn.csv (set,quantity,values...):

    sigmoid_ab        A, B of sklearn.calibration._sigmoid_calibration (Platt's sigmoid
                      1/(1 + exp(A*s + B)), the function CalibratedClassifierCV(method="sigmoid")
                      fits), with sample_weight for the weighted set
    sigmoid_bound     how far that A, B may lie from the exact minimum: scikit-learn stops
                      scipy's fmin_bfgs at a gradient norm of gtol = 1e-5, so the distance is at
                      most ||g|| / lambda_min(H) <= 1e-5 / lambda_min(H) (H the Hessian of the same
                      objective at sklearn's A, B; quadratic model), times 10 for the model's error
    sigmoid_objective Platt's objective at sklearn's A, B (the exact minimum is at most this)
    isotonic_x        X_thresholds_ of IsotonicRegression(out_of_bounds="clip") (what
                      CalibratedClassifierCV(method="isotonic") fits), sample_weight as above
    isotonic_y        y_thresholds_
    probes            scores to evaluate at: inside, between, at and outside the thresholds
    isotonic_predict  the isotonic model's predictions at the probes
    sigmoid_predict   the sigmoid's probabilities at the probes (expit(-(A*s + B)))
"""

import sys
from pathlib import Path

import numpy as np
import scipy
import sklearn
from scipy.special import expit, xlogy
from sklearn.calibration import _sigmoid_calibration
from sklearn.isotonic import IsotonicRegression

HERE = Path(__file__).resolve().parent
SCORES = HERE / "calibration_scores.csv"
OUT = HERE / "calibration_sklearn.csv"


def sets():
    rng = np.random.default_rng(33)
    out = {}
    y = (rng.random(400) < 0.4).astype(int)
    s = np.where(y == 1, rng.normal(10, 7, 400), rng.normal(-7, 8, 400))
    out["margins"] = (s, y, np.ones(400))
    s = rng.integers(-5, 6, 300).astype(float)
    y = (rng.random(300) < expit(0.8 * s + 0.3)).astype(int)
    out["ties"] = (s, y, np.ones(300))
    y = (rng.random(200) < 0.5).astype(int)
    s = np.where(y == 1, rng.normal(1, 1.5, 200), rng.normal(-1, 1.5, 200))
    w = rng.uniform(0.1, 3, 200)
    w[rng.random(200) < 0.1] = 0.0
    out["weighted"] = (s, y, w)
    y = np.array([0] * 30 + [1] * 30)
    s = np.concatenate([rng.uniform(-9, -0.5, 30), rng.uniform(0.5, 12, 30)])
    out["separable"] = (s, y, np.ones(60))
    return out


def platt_objective(a, b, s, y, w):
    prior1 = w[y == 1].sum()
    prior0 = w[y == 0].sum()
    t = np.where(y == 1, (prior1 + 1) / (prior1 + 2), 1 / (prior0 + 2))
    p = expit(-(a * s + b))
    return (w * -(xlogy(t, p) + xlogy(1 - t, 1 - p))).sum()


def platt_hessian(a, b, s, w):
    p = expit(-(a * s + b))
    d = w * p * (1 - p)
    return np.array([[np.dot(d, s * s), np.dot(d, s)], [np.dot(d, s), d.sum()]])


def line(name, quantity, values):
    return ",".join([name, quantity] + [repr(float(v)) for v in values])


def main():
    lines = []
    score_lines = ["set,score,label,weight"]
    for name, (s, y, w) in sets().items():
        for si, yi, wi in zip(s, y, w):
            score_lines.append(f"{name},{float(si)!r},{int(yi)},{float(wi)!r}")
        weights = None if name != "weighted" else w
        a, b = _sigmoid_calibration(s, y, weights)
        h = platt_hessian(a, b, s, w)
        bound = 10 * 1e-5 / np.linalg.eigvalsh(h).min()
        iso = IsotonicRegression(out_of_bounds="clip").fit(s, y, weights)
        x = iso.X_thresholds_
        mids = (x[:-1] + x[1:]) / 2
        probes = np.concatenate([[x[0] - 3.0, x[-1] + 3.0], x[:: max(1, len(x) // 7)],
                                 mids[:: max(1, len(mids) // 7)]])
        lines.append(line(name, "sigmoid_ab", [a, b]))
        lines.append(line(name, "sigmoid_bound", [bound]))
        lines.append(line(name, "sigmoid_objective", [platt_objective(a, b, s, y, w)]))
        lines.append(line(name, "isotonic_x", x))
        lines.append(line(name, "isotonic_y", iso.y_thresholds_))
        lines.append(line(name, "probes", probes))
        lines.append(line(name, "isotonic_predict", iso.predict(probes)))
        lines.append(line(name, "sigmoid_predict", expit(-(a * probes + b))))
    SCORES.write_text("\n".join(score_lines) + "\n")
    OUT.write_text("\n".join(lines) + "\n")
    print(f"wrote {SCORES.name} and {OUT.name} with scikit-learn {sklearn.__version__},"
          f" numpy {np.__version__}, scipy {scipy.__version__}", file=sys.stderr)


if __name__ == "__main__":
    main()
