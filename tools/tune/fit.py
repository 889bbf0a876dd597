"""Fits the evaluation's fitted terms by ridge least squares, so that Kibitz's
static evaluation comes close to Fairy-Stockfish's (scaled) on labelled quiet
positions: for chess (rules/src/search/tuned_chess.rs, labels from label.py) and
Alapawn (tuned_alapawn.rs, labels from selfplay.py) piece-square tables for
the middlegame and the ending and mobility curves;
for Olympic (tuned_olympic.rs, labels from selfplay.py) one piece-square
table per kind and the worth of each kind in hand. The labels hold Kibitz's
evaluation with the tables then in use; their part is taken out, so a fit
starts from the hand-set terms alone. One position in ten is held out to
show how well the fit generalises.

    python3 fit.py chess|alapawn|olympic LABELS.csv TABLES.rs [RIDGE [SCALE]]

RIDGE (default 300) pulls rarely seen squares towards zero; SCALE is how
much larger Fairy-Stockfish's evaluations run than Kibitz's (the slope of
one on the other over these positions: 1.1 in chess, 1.0 in Olympic).
"""
import math
import re
import sys

import numpy as np

PIECES = 768  # 6 kinds x 2 phases x 64 squares
MOBILITY = 16  # 4 kinds x (count, square root) x 2 phases
HAND = 5
# Olympic's letters by kind (as in rules/src/search/tuned_olympic.rs): promoted
# pieces move as Golds.
OLYMPIC_KINDS = {"p": 0, "s": 1, "g": 2, "b": 3, "r": 4, "k": 5}


def read_tables(path):
    text = open(path).read()
    numbers = lambda field, count: [int(x) for x in re.findall(r"-?\d+", text[text.index(field + ":"):])][:count]
    pst = np.array(numbers("pst", 768)).reshape(6, 2, 64) if "pst: [\n" in text else np.zeros((6, 2, 64))
    mobility = np.array(numbers("mobility", 224)).reshape(4, 2, 28) if "mobility: [\n" in text else np.zeros((4, 2, 28))
    hand = np.array(numbers("hand", 5)) if "hand: [0; 5]" not in text else np.zeros(5)
    return pst, mobility, hand


class Chess:
    """A chess position, or an Alapawn one: the same pieces on the same board
    (Alapawn's King is not royal, and its pawns step differently, but only
    the pieces' squares and the reach of knights, bishops, rooks and queens
    count here)."""

    phased = True
    turned = False
    kinds = "Powers::PAWN, Powers::KNIGHT, Powers::BISHOP, Powers::ROOK, QUEEN"

    def __init__(self, fen):
        import chess

        self.board = chess.Board(fen)
        self.chess = chess

    def pieces(self):
        """(kind, square from White's side, +1 White / -1 Black, squares reached or None)."""
        b, chess = self.board, self.chess
        for square, p in b.piece_map().items():
            kind = p.piece_type - 1
            reach = len(b.attacks(square) & ~b.occupied_co[p.color]) if 1 <= kind <= 4 else None
            yield kind, square if p.color else square ^ 56, 1 if p.color else -1, reach

    def phase(self):
        weights = {2: 1, 3: 1, 4: 2, 5: 4}
        return min(24, sum(weights.get(p.piece_type, 0) for p in self.board.piece_map().values()))

    def hands(self):
        return []


class Olympic:
    phased = False
    turned = True
    kinds = "Powers::PAWN, Powers::SILVER, Powers::GOLD, Powers::BISHOP, Powers::ROOK"

    def __init__(self, fen):
        board, _, rest = fen.partition("[")
        self.held, _, _ = rest.partition("]")
        self.squares = []
        for i, row in enumerate(board.split()[0].split("/")):
            rank, file, promoted = 4 - i, 0, False
            for ch in row:
                if ch.isdigit():
                    file += int(ch)
                elif ch == "+":
                    promoted = True
                else:
                    kind = OLYMPIC_KINDS["g" if promoted else ch.lower()]
                    white = ch.isupper()
                    # Black's squares turned half round, as its army faces
                    # White's (O1): its King's corner is White's a1.
                    at = rank * 8 + file if white else (4 - rank) * 8 + 4 - file
                    self.squares.append((kind, at, 1 if white else -1, None))
                    file, promoted = file + 1, False

    def pieces(self):
        return self.squares

    def phase(self):
        return 24

    def hands(self):
        return [(OLYMPIC_KINDS[ch.lower()], 1 if ch.isupper() else -1) for ch in self.held]


def in_use(pos, pst, mobility, hand):
    """What the tables in use add to the evaluation, from White's side."""
    phase = pos.phase()
    side = {1: [0, 0], -1: [0, 0]}
    for kind, at, sign, reach in pos.pieces():
        side[sign][0] += pst[kind, 0, at]
        side[sign][1] += pst[kind, 1, at]
        if reach is not None:
            side[sign][0] += mobility[kind - 1, 0, min(27, reach)]
            side[sign][1] += mobility[kind - 1, 1, min(27, reach)]
    for kind, sign in pos.hands():
        side[sign][0] += hand[kind]
        side[sign][1] += hand[kind]
    blend = lambda s: int((s[0] * phase + s[1] * (24 - phase)) / 24)
    return blend(side[1]) - blend(side[-1])


def features(pos, n, rows, cols, vals):
    phase = pos.phase() / 24
    for kind, at, sign, reach in pos.pieces():
        base = kind * 128 + at
        rows += [n, n]
        cols += [base, base + 64]
        vals += [sign * phase, sign * (1 - phase)]
        if reach is not None:
            j = PIECES + (kind - 1) * 4
            root = math.sqrt(reach) * 10
            rows += [n] * 4
            cols += [j, j + 1, j + 2, j + 3]
            vals += [sign * phase * reach, sign * (1 - phase) * reach, sign * phase * root, sign * (1 - phase) * root]
    for kind, sign in pos.hands():
        rows.append(n)
        cols.append(PIECES + MOBILITY + kind)
        vals.append(sign)


def write_tables(path, name, pst, mobility, hand, position):
    def row(values):
        return "[" + ", ".join(str(int(round(v))) for v in values) + "]"

    with open(path, "w") as out:
        out.write(f"// Fitted by tools/tune/fit.py (see tools/tune/README.md): piece-square tables by kind,\n")
        out.write("// middlegame then ending, by square (rank * 8 + file) from White's side; mobility by kinds\n")
        out.write("// 1-4 and number of squares reached; pieces in hand by kind.\n")
        out.write(f"pub(super) static {name}: Tuned = Tuned {{\n")
        out.write(f"    kinds: [{position.kinds}],\n    phased: {str(position.phased).lower()},\n")
        out.write(f"    turned: {str(position.turned).lower()},\n")
        out.write("    pst: [\n")
        for kind in range(6):
            out.write("        [\n")
            for phase in range(2):
                out.write("            " + row(pst[kind, phase]) + ",\n")
            out.write("        ],\n")
        out.write("    ],\n    mobility: [\n")
        for kind in range(4):
            out.write("        [" + row(mobility[kind, 0]) + ", " + row(mobility[kind, 1]) + "],\n")
        out.write("    ],\n")
        out.write(f"    hand: {row(hand)},\n}};\n")


def main():
    variant, labels, tables = sys.argv[1], sys.argv[2], sys.argv[3]
    ridge = float(sys.argv[4]) if len(sys.argv) > 4 else 300.0
    scale = float(sys.argv[5]) if len(sys.argv) > 5 else (1.1 if variant == "chess" else 1.0)
    Position = {"chess": Chess, "alapawn": Chess, "olympic": Olympic}[variant]
    now = read_tables(tables)
    rows, cols, vals, theirs, ours = [], [], [], [], []
    n = 0
    for line in open(labels):
        fen, a, b = line.strip().rsplit(",", 2)
        pos = Position(fen)
        a, b = float(a), float(b) - in_use(pos, *now)
        # Lopsided positions say little about squares and mobility.
        if abs(a) > 700 or abs(b) > 700:
            continue
        features(pos, n, rows, cols, vals)
        theirs.append(a)
        ours.append(b)
        n += 1
    size = PIECES + MOBILITY + HAND
    x = np.zeros((n, size))
    np.add.at(x, (np.array(rows), np.array(cols)), np.array(vals))
    y = np.array(theirs) / scale - np.array(ours)
    order = np.random.default_rng(1).permutation(n)
    held, train = order[: n // 10], order[n // 10:]
    # No ridge on the worth in hand: every position has a say in it.
    penalty = np.full(size, ridge)
    penalty[PIECES + MOBILITY:] = ridge / 100
    w = np.linalg.solve(x[train].T @ x[train] + np.diag(penalty), x[train].T @ y[train])

    def error(ids, weights):
        return float(np.mean((x[ids] @ weights - y[ids]) ** 2))

    print(f"{n} positions; mean squared gap before {error(train, 0 * w):.0f} (held out {error(held, 0 * w):.0f}),"
          f" after {error(train, w):.0f} (held out {error(held, w):.0f})")
    pst = w[:PIECES].reshape(6, 2, 64)
    if not Position.phased:
        pst[:, 1] = pst[:, 0]
    curves = w[PIECES:PIECES + MOBILITY].reshape(4, 4)
    counts = np.arange(28)
    mobility = np.zeros((4, 2, 28))
    if Position.phased:
        for kind in range(4):
            a_mg, a_eg, b_mg, b_eg = curves[kind]
            mobility[kind, 0] = a_mg * counts + b_mg * np.sqrt(counts) * 10
            mobility[kind, 1] = a_eg * counts + b_eg * np.sqrt(counts) * 10
    hand = w[PIECES + MOBILITY:]
    print("in hand:", np.round(hand).astype(int))
    write_tables(tables, variant.upper(), pst, mobility, hand, Position)


if __name__ == "__main__":
    main()
