"""Fits Olympic's fitted evaluation terms to the results of games (Texel's
method): the piece-square tables and the worth in hand
(rules/src/search/tuned_olympic.rs) and the weights of the counted terms
(rules/src/search/drop_threats_weights.rs). Through a logistic curve, the
static evaluation with a correction predicts the result of the game each
quiet position came from (labels from outcomes.py); the correction that
predicts best, less a ridge penalty, is added to the terms in use.

    python3 outcome_fit.py TRAIN.csv HELD.csv TABLES.rs WEIGHTS.rs [RIDGE]

HELD.csv holds games of their own (another seed of outcomes.py), to show
how well the fit predicts games it has not seen. RIDGE (default 0.001, in
the units of the curve's Newton steps) pulls the correction towards zero.
The labels hold Kibitz's evaluation with the terms then in use, which the
correction is added to: label again (a new outcomes.py run) before
fitting once more.
"""
import re
import sys

import numpy as np

import drop_terms
import fit

# The board's 25 squares (rank * 8 + file, as the tables index them) in order.
SQUARES = [r * 8 + f for r in range(5) for f in range(5)]
INDEX = {sq: i for i, sq in enumerate(SQUARES)}
KINDS = 6
TABLES = KINDS * 25
HAND = 5
TERMS = len(drop_terms.NAMES)
# The counted terms as the engine weighs them: two count in sixteenths.
SCALE = [1 / 16 if i in drop_terms.SIXTEENTHS else 1 for i in range(TERMS)]
# Lopsided positions say little that the material does not.
LOPSIDED = 1500


def features(fen):
    """White's counts less Black's: pieces by kind and square (Black's seen
    from its side, O1), pieces in hand by kind, then the counted terms as the
    engine weighs them."""
    pos = fit.Olympic(fen)
    x = np.zeros(TABLES + HAND + TERMS)
    for kind, at, sign, _ in pos.pieces():
        x[kind * 25 + INDEX[at]] += sign
    for kind, sign in pos.hands():
        x[TABLES + kind] += sign
    x[TABLES + HAND:] = [n * s for n, s in zip(drop_terms.features(fen), SCALE)]
    return x


def read(path):
    rows, results, evaluations = [], [], []
    for line in open(path):
        fen, result, evaluation = line.strip().rsplit(",", 2)
        if abs(float(evaluation)) > LOPSIDED:
            continue
        rows.append(features(fen))
        results.append(float(result))
        evaluations.append(float(evaluation))
    return np.array(rows), np.array(results), np.array(evaluations)


def curve(z):
    return 1 / (1 + np.exp(-z))


def loss(p, results):
    """Mean log-loss of the predictions `p` of `results`."""
    p = np.clip(p, 1e-6, 1 - 1e-6)
    return float(-np.mean(results * np.log(p) + (1 - results) * np.log(1 - p)))


def main():
    train, held, tables, weights = sys.argv[1:5]
    ridge = float(sys.argv[5]) if len(sys.argv) > 5 else 0.001
    x, r, e = read(train)
    hx, hr, he = read(held)
    # The curve's slope, for the evaluation as it is.
    c = min(np.linspace(0.0005, 0.02, 400), key=lambda c: loss(curve(c * e), r))
    w = np.zeros(x.shape[1])
    for _ in range(12):  # Newton steps on the log-loss with a ridge penalty
        p = curve(c * (e + x @ w))
        gradient = c * x.T @ (p - r) + ridge * w
        hessian = c * c * (x.T * (p * (1 - p))) @ x + ridge * np.eye(len(w))
        w -= np.linalg.solve(hessian, gradient)
    print(f"{len(r)} positions ({len(hr)} held out), slope {c:.4f} a centipawn; log-loss"
          f" {loss(curve(c * e), r):.4f} -> {loss(curve(c * (e + x @ w)), r):.4f},"
          f" held out {loss(curve(c * he), hr):.4f} -> {loss(curve(c * (he + hx @ w)), hr):.4f}")
    print("in hand:", np.round(w[TABLES:TABLES + HAND]).astype(int))
    for i, name in enumerate(drop_terms.NAMES):
        print(f"  {name:14s} {w[TABLES + HAND + i]:7.1f}")
    pst, mobility, hand = (t.astype(float) for t in fit.read_tables(tables))
    for kind in range(KINDS):
        for sq, i in INDEX.items():
            pst[kind, :, sq] += w[kind * 25 + i]
    fit.write_tables(tables, "OLYMPIC", pst, mobility, hand + w[TABLES:TABLES + HAND], fit.Olympic)
    now = np.array([int(v) for v in re.findall(r"-?\d+", open(weights).read())], dtype=float)
    with open(weights, "w") as out:
        out.write("[" + ", ".join(str(round(v)) for v in now + w[TABLES + HAND:]) + "]\n")


if __name__ == "__main__":
    main()
