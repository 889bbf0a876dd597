"""The fit that terms.py and drop_terms.py share: weights for counted
terms by ridge least squares, so that Kibitz's static evaluation comes
closer to Fairy-Stockfish's (scaled to it) on labelled quiet positions."""
import re

import numpy as np


def fit_terms(labels, path, ridge, features, names):
    """Fits one weight per column of `features(fen)` (a list of numbers,
    White's counts less Black's) on LABELS (fen,theirs,ours). The labels
    hold Kibitz's evaluation with the weights in PATH, whose part is taken
    out first. Prints the gap before and after, on the positions fitted and
    on one in five held out, and the weights by `names`; returns them."""
    now = np.array([int(x) for x in re.findall(r"-?\d+", open(path).read())], dtype=float)
    rows, theirs, ours = [], [], []
    for line in open(labels):
        fen, a, b = line.strip().rsplit(",", 2)
        x = np.array(features(fen), dtype=float)
        a, b = float(a), float(b) - float(np.dot(x, now))
        # Lopsided positions say little about these terms.
        if abs(a) > 700 or abs(b) > 700:
            continue
        rows.append(x)
        theirs.append(a)
        ours.append(b)
    x, theirs, ours = np.array(rows), np.array(theirs), np.array(ours)
    slope = float(ours @ theirs / (theirs @ theirs))
    y = slope * theirs - ours
    order = np.random.default_rng(1).permutation(len(y))
    held, train = order[: len(y) // 5], order[len(y) // 5:]
    w = np.linalg.solve(x[train].T @ x[train] + ridge * np.eye(x.shape[1]), x[train].T @ y[train])
    gap = lambda ids, weights: float(np.mean((x[ids] @ weights - y[ids]) ** 2))
    print(f"{len(y)} positions, Kibitz about {slope:.3f} x Fairy-Stockfish; mean squared gap before"
          f" {gap(train, 0 * w):.0f} (held out {gap(held, 0 * w):.0f}), after {gap(train, w):.0f}"
          f" (held out {gap(held, w):.0f})")
    per = len(w) // len(names)
    for i, n in enumerate(names):
        print(f"  {n:14s} " + " ".join(f"{v:7.1f}" for v in w[per * i: per * i + per]))
    return w
