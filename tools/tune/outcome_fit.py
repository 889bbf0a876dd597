"""Fits evaluation terms to the results of games (Texel's method). Through
a logistic curve, the static evaluation with a correction predicts the
result of the game each quiet position came from (labels from
outcomes.py); the correction that predicts best, less a ridge penalty, is
added to the terms in use.

Olympic: the piece-square tables and the worth in hand
(rules/src/search/tuned_olympic.rs) and the weights of the counted terms
(rules/src/search/drop_threats_weights.rs). Chess: each kind's worth in the
middlegame and the ending (added to every square of its piece-square
tables, rules/src/search/tuned_chess.rs) and the weights of the counted
terms (rules/src/search/threats_weights.rs).

    python3 outcome_fit.py olympic|chess TRAIN.csv HELD.csv TABLES.rs WEIGHTS.rs [RIDGE]

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
import terms

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


# Chess: the worth of pawns, knights, bishops, rooks and queens by phase,
# then the counted terms by phase.
CHESS_KINDS = 5
CHESS_TERMS = len(terms.NAMES)


def chess_features(fen):
    """White's counts less Black's, each split into middlegame and ending
    shares by the phase: pieces by kind, then the counted terms."""
    pos = fit.Chess(fen)
    p = pos.phase() / 24
    x = np.zeros(2 * CHESS_KINDS + 2 * CHESS_TERMS)
    for kind, _, sign, _ in pos.pieces():
        if kind < CHESS_KINDS:
            x[2 * kind] += sign * p
            x[2 * kind + 1] += sign * (1 - p)
    x[2 * CHESS_KINDS:] = terms.features(fen)
    return x


def read(path, features):
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


def fit_correction(x, r, e, hx, hr, he, ridge):
    """The correction to the evaluation, one weight per feature."""
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
    return w


def read_weights(path):
    """The counted terms' weights in use, in the file's order."""
    return np.array([int(v) for v in re.findall(r"-?\d+", open(path).read())], dtype=float)


def olympic(train, held, tables, weights, ridge):
    w = fit_correction(*read(train, features), *read(held, features), ridge)
    print("in hand:", np.round(w[TABLES:TABLES + HAND]).astype(int))
    for i, name in enumerate(drop_terms.NAMES):
        print(f"  {name:14s} {w[TABLES + HAND + i]:7.1f}")
    pst, mobility, hand = (t.astype(float) for t in fit.read_tables(tables))
    for kind in range(KINDS):
        for sq, i in INDEX.items():
            pst[kind, :, sq] += w[kind * 25 + i]
    fit.write_tables(tables, "OLYMPIC", pst, mobility, hand + w[TABLES:TABLES + HAND], fit.Olympic)
    new = read_weights(weights) + w[TABLES + HAND:]
    with open(weights, "w") as out:
        out.write("[" + ", ".join(str(round(v)) for v in new) + "]\n")


def chess(train, held, tables, weights, ridge):
    w = fit_correction(*read(train, chess_features), *read(held, chess_features), ridge)
    for kind, name in enumerate(["pawn", "knight", "bishop", "rook", "queen"]):
        print(f"  {name:14s} {w[2 * kind]:7.1f} {w[2 * kind + 1]:7.1f}")
    for i, name in enumerate(terms.NAMES):
        j = 2 * CHESS_KINDS + 2 * i
        print(f"  {name:14s} {w[j]:7.1f} {w[j + 1]:7.1f}")
    pst, mobility, hand = (t.astype(float) for t in fit.read_tables(tables))
    for kind in range(CHESS_KINDS):
        pst[kind, 0, :] += w[2 * kind]
        pst[kind, 1, :] += w[2 * kind + 1]
    fit.write_tables(tables, "CHESS", pst, mobility, hand, fit.Chess)
    new = read_weights(weights) + w[2 * CHESS_KINDS:]
    with open(weights, "w") as out:
        out.write("[" + ", ".join(f"[{round(new[2 * i])}, {round(new[2 * i + 1])}]" for i in range(CHESS_TERMS)) + "]\n")


def main():
    variant, train, held, tables, weights = sys.argv[1:6]
    ridge = float(sys.argv[6]) if len(sys.argv) > 6 else 0.001
    {"olympic": olympic, "chess": chess}[variant](train, held, tables, weights, ridge)


if __name__ == "__main__":
    main()
