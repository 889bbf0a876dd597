"""Fits the weights of Olympic Chess's counted terms (the danger to each
King from pieces on the board and in hand: attacked and weak squares around
it, safe checks by a drop or a move, its defenders and flight squares; and
threats to pieces: rules/src/search/drop_threats.rs) by ridge least squares,
so that Kibitz's static evaluation comes closer to Fairy-Stockfish's on
labelled quiet positions (selfplay.py olympic). The counts here are the
engine's, term by term and in its order; the labels hold Kibitz's
evaluation with the weights then in use, whose part is taken out first.
One position in five is held out.

    python3 drop_terms.py LABELS.csv WEIGHTS.rs [RIDGE]

WEIGHTS.rs is rules/src/search/drop_threats_weights.rs, read and then
written over. Fairy-Stockfish's evaluations are scaled to Kibitz's by the
slope of one on the other over these positions.
"""
import sys

from ridge import fit_terms

KINDS = "psgbr"  # kinds 0-4 as in rules/src/search/tuned_olympic.rs; the King is 5
KING = 5
NAMES = (
    ["tempo", "zone", "zone_weak", "zone_twice"]
    + [f"drop_check_{k}" for k in KINDS]
    + [f"move_check_{k}" for k in KINDS]
    + ["hand_zone", "danger2", "defenders", "flight", "hanging", "pawn_threat", "minor_threat", "attacked"]
    + ["pressure", "tempo_held"]
)
# danger2 and pressure (the hand-set term for pressure on the King, which
# the fit may scale) count in sixteenths.
SIXTEENTHS = [NAMES.index("danger2"), NAMES.index("pressure")]
WIDTH = HEIGHT = 5
# Rough worth of pawn, silver, gold, bishop, rook, and of both whole armies
# (rules/src/search/drop_threats.rs).
WORTH = [1, 3, 4, 4, 5]
ARMIES = 2 * sum(WORTH)
BOARD = sum(1 << (r * 8 + f) for r in range(HEIGHT) for f in range(WIDTH))


def bit(f, r):
    return 1 << (r * 8 + f) if 0 <= f < WIDTH and 0 <= r < HEIGHT else 0


def count(bb):
    return bin(bb).count("1")


def squares(bb):
    while bb:
        low = bb & -bb
        yield low.bit_length() - 1
        bb ^= low


def steps(kind, white):
    d = 1 if white else -1
    return {
        0: [(-1, d), (1, d)],
        1: [(-1, d), (0, d), (1, d), (-1, -d), (1, -d)],
        2: [(0, 1), (0, -1), (-1, 0), (1, 0), (-1, d), (1, d)],
        KING: [(x, y) for x in (-1, 0, 1) for y in (-1, 0, 1) if (x, y) != (0, 0)],
    }.get(kind)


def attacks(kind, sq, white, occ):
    """The squares a piece of `kind` on `sq` attacks (as the engine's
    Position::attacks: a slide stops on the first piece, which it attacks)."""
    f, r = sq % 8, sq // 8
    near = steps(kind, white)
    if near is not None:
        return sum(bit(f + x, r + y) for x, y in near)
    dirs = [(1, 1), (1, -1), (-1, 1), (-1, -1)] if kind == 3 else [(1, 0), (-1, 0), (0, 1), (0, -1)]
    out = 0
    for x, y in dirs:
        g, s = f + x, r + y
        while bit(g, s):
            out |= bit(g, s)
            if occ & bit(g, s):
                break
            g, s = g + x, s + y
    return out


def parse(fen):
    """Pieces by side and kind (bitboards), hands by side and kind, side to move."""
    board, rest = fen.split("[", 1)
    hand, rest = rest.split("]", 1)
    placed = [[0] * 6, [0] * 6]
    for i, row in enumerate(board.split("/")):
        r, f, promoted = HEIGHT - 1 - i, 0, False
        for ch in row:
            if ch.isdigit():
                f += int(ch)
            elif ch == "+":
                promoted = True
            else:
                kind = KING if ch.lower() == "k" else (2 if promoted else KINDS.index(ch.lower()))
                placed[0 if ch.isupper() else 1][kind] |= bit(f, r)
                f, promoted = f + 1, False
    hands = [[0] * 5, [0] * 5]
    for ch in hand:
        hands[0 if ch.isupper() else 1][KINDS.index(ch.lower())] += 1
    return placed, hands, rest.split()[0] == "w"


def features(fen):
    """The counts, White's less Black's."""
    placed, hands, white_to_move = parse(fen)
    own = [sum(p) for p in placed]
    occ = own[0] | own[1]
    allb, twice, by_kind = [0, 0], [0, 0], [[0] * 6, [0] * 6]
    for side in range(2):
        for kind in range(6):
            for sq in squares(placed[side][kind]):
                a = attacks(kind, sq, side == 0, occ)
                twice[side] |= allb[side] & a
                allb[side] |= a
                by_kind[side][kind] |= a
    zone = [0, 0]
    for side in range(2):
        for k in squares(placed[side][KING]):
            zone[side] = attacks(KING, k, True, occ) | (1 << k)
    counts = []
    for us in range(2):
        them = 1 - us
        f = dict.fromkeys(NAMES, 0)
        f["tempo"] = int(white_to_move == (us == 0))
        f["tempo_held"] = min(sum(hands[us]), 3) if f["tempo"] else 0
        hit = allb[us]
        if placed[them][KING]:
            k = next(squares(placed[them][KING]))
            near = zone[them]
            f["zone"] = count(near & hit)
            weak = near & hit & ~twice[them] & (~allb[them] | by_kind[them][KING])
            f["zone_weak"] = count(weak)
            f["zone_twice"] = count(near & twice[us])
            empty = BOARD & ~occ
            safe_drop = ~allb[them] | (allb[us] & by_kind[them][KING] & ~twice[them])
            safe_move = ~own[us] & (~allb[them] | (twice[us] & by_kind[them][KING] & ~twice[them]))
            checks = 0
            for kind in range(5):
                # Where a piece of this kind would check: the squares a piece of
                # the King's colour attacks from the King's square.
                source = attacks(kind, k, them == 0, occ)
                if hands[us][kind] and source & empty & safe_drop:
                    f[f"drop_check_{KINDS[kind]}"] = 1
                    checks += 1
                if source & by_kind[us][kind] & safe_move:
                    f[f"move_check_{KINDS[kind]}"] = 1
                    checks += 1
            held = sum(hands[us])
            f["hand_zone"] = held * f["zone_weak"]
            danger = f["zone"] + f["zone_weak"] + 2 * checks + held
            f["danger2"] = danger * danger
            # As rules/src/search/eval.rs: every piece but pawns and the King
            # by the squares it attacks around the enemy King, and two for
            # each piece in hand.
            units = 2 * held
            for kind in range(1, 5):
                for sq in squares(placed[us][kind]):
                    units += count(attacks(kind, sq, us == 0, occ) & near)
            f["pressure"] = min(units * units * 4, 900)
        if placed[us][KING]:
            k = next(squares(placed[us][KING]))
            mine = own[us] & ~placed[us][KING]
            f["defenders"] = count(mine & zone[us])
            f["flight"] = count(attacks(KING, k, True, occ) & ~own[us] & ~allb[them])
        pieces = own[them] & ~placed[them][KING]
        f["hanging"] = count(pieces & hit & ~allb[them])
        f["pawn_threat"] = count(pieces & ~placed[them][0] & by_kind[us][0])
        f["minor_threat"] = count((placed[them][3] | placed[them][4]) & (by_kind[us][1] | by_kind[us][2]))
        f["attacked"] = count(pieces & hit)
        counts.append(f)
    # As the engine: a position with less than both whole armies (set up,
    # never reached in a game) counts the terms for that much less.
    material = sum(WORTH[kind] * (count(placed[side][kind]) + hands[side][kind]) for side in range(2) for kind in range(5))
    share = min(1.0, material / ARMIES)
    return [(counts[0][n] - counts[1][n]) * share for n in NAMES]


def main():
    labels, path = sys.argv[1], sys.argv[2]
    ridge = float(sys.argv[3]) if len(sys.argv) > 3 else 50.0
    scale = [1 / 16 if i in SIXTEENTHS else 1 for i in range(len(NAMES))]
    w = fit_terms(labels, path, ridge, lambda fen: [n * s for n, s in zip(features(fen), scale)], NAMES)
    with open(path, "w") as out:
        out.write("[" + ", ".join(str(round(v)) for v in w) + "]\n")


if __name__ == "__main__":
    main()
