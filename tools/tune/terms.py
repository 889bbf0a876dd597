"""Fits the weights of the chess evaluation's counted terms (threats, the
danger to each King, passed pawns by how free their way is, pawn structure,
outposts, space: rules/src/search/threats.rs) by ridge least squares, so
that Kibitz's static evaluation comes closer to Fairy-Stockfish's classical
one on labelled quiet positions (label.py). The counts here are the
engine's, term by term and in its order; the labels hold Kibitz's
evaluation with the weights then in use, whose part is taken out first.
One position in five is held out.

    python3 terms.py LABELS.csv WEIGHTS.rs [RIDGE]

WEIGHTS.rs is rules/src/search/threats_weights.rs, read and then written
over. Fairy-Stockfish's evaluations are scaled to Kibitz's by the slope of
one on the other over these positions.
"""
import sys

import chess

from ridge import fit_terms

NAMES = (
    ["tempo"]
    + [f"passed{r}" for r in range(1, 7)]
    + [f"free{r}" for r in range(1, 7)]
    + [f"safe{r}" for r in range(1, 7)]
    + [f"connected{r}" for r in range(1, 7)]
    + ["backward", "weak_pawn"]
    + [f"minor_on{k}" for k in (chess.KNIGHT, chess.BISHOP, chess.ROOK, chess.QUEEN)]
    + ["rook_on_queen", "hanging", "king_on", "zone", "zone_weak"]
    + [f"check{k}" for k in (chess.KNIGHT, chess.BISHOP, chess.ROOK, chess.QUEEN)]
    + [f"storm{d}" for d in range(4)]
    + ["open_file", "rook_seventh", f"outpost{chess.KNIGHT}", f"outpost{chess.BISHOP}", "bishop_pawns", "space"]
)
CENTRE_FILES = chess.BB_FILE_C | chess.BB_FILE_D | chess.BB_FILE_E | chess.BB_FILE_F


def phase(board):
    weights = {chess.KNIGHT: 1, chess.BISHOP: 1, chess.ROOK: 2, chess.QUEEN: 4}
    return min(24, sum(weights.get(p.piece_type, 0) for p in board.piece_map().values())) / 24


def reach(board, color):
    """The squares `color` attacks, those it attacks twice, and by kind."""
    every, twice, kinds = 0, 0, {k: 0 for k in chess.PIECE_TYPES}
    for sq, p in board.piece_map().items():
        if p.color == color:
            a = int(board.attacks(sq))
            twice |= every & a
            every |= a
            kinds[p.piece_type] |= a
    return every, twice, kinds


def count(bb):
    return chess.popcount(bb)


def side(board, us, f):
    """Adds the counts of side `us` to `f`."""
    them = not us
    rel = (lambda sq: chess.square_rank(sq)) if us else (lambda sq: 7 - chess.square_rank(sq))
    hit, twice, by = reach(board, us)
    their_hit, their_twice, their_by = reach(board, them)
    pawns, their_pawns = board.pieces_mask(chess.PAWN, us), board.pieces_mask(chess.PAWN, them)
    king, their_king = board.king(us), board.king(them)
    if board.turn == us:
        f["tempo"] += 1
    for sq in chess.scan_forward(pawns):
        fl, r = chess.square_file(sq), rel(sq)
        stop = sq + 8 if us else sq - 8
        ahead = [p for p in chess.scan_forward(their_pawns) if abs(chess.square_file(p) - fl) <= 1 and rel(p) > r]
        if not ahead:
            f[f"passed{r}"] += 1
            if not board.piece_at(stop):
                f[f"free{r}"] += 1
                if not their_hit & chess.BB_SQUARES[stop]:
                    f[f"safe{r}"] += 1
        beside = [s for s in (sq - 1, sq + 1) if 0 <= s < 64 and abs(chess.square_file(s) - fl) == 1]
        if by[chess.PAWN] & chess.BB_SQUARES[sq] or any(pawns & chess.BB_SQUARES[s] for s in beside):
            f[f"connected{r}"] += 1
        support = [p for p in chess.scan_forward(pawns) if abs(chess.square_file(p) - fl) == 1 and rel(p) <= r]
        if not support and their_by[chess.PAWN] & chess.BB_SQUARES[stop]:
            f["backward"] += 1
    unguarded = ~their_hit & chess.BB_ALL
    minors = by[chess.KNIGHT] | by[chess.BISHOP]
    pieces = 0
    for kind in (chess.KNIGHT, chess.BISHOP, chess.ROOK, chess.QUEEN):
        theirs = board.pieces_mask(kind, them)
        f[f"minor_on{kind}"] += count(theirs & minors)
        pieces |= theirs
    f["rook_on_queen"] += count(board.pieces_mask(chess.QUEEN, them) & by[chess.ROOK])
    f["hanging"] += count(pieces & hit & unguarded)
    f["king_on"] += count(pieces & by[chess.KING] & unguarded)
    f["weak_pawn"] += count(their_pawns & hit & unguarded)
    near = int(board.attacks(their_king)) | chess.BB_SQUARES[their_king]
    f["zone"] += count(near & hit)
    weak = near & hit & ~their_twice & (unguarded | their_by[chess.KING] | their_by[chess.QUEEN])
    f["zone_weak"] += count(weak)
    safe = (unguarded | (weak & twice)) & ~board.occupied_co[us]
    occ = board.occupied
    knight = chess.BB_KNIGHT_ATTACKS[their_king]
    bishop = chess.BB_DIAG_ATTACKS[their_king][chess.BB_DIAG_MASKS[their_king] & occ]
    rook = (chess.BB_RANK_ATTACKS[their_king][chess.BB_RANK_MASKS[their_king] & occ]
            | chess.BB_FILE_ATTACKS[their_king][chess.BB_FILE_MASKS[their_king] & occ])
    for kind, squares in ((chess.KNIGHT, knight), (chess.BISHOP, bishop), (chess.ROOK, rook), (chess.QUEEN, bishop | rook)):
        if by[kind] & squares & safe:
            f[f"check{kind}"] += 1
    kf = chess.square_file(their_king)
    for p in chess.scan_forward(pawns):
        d = abs(chess.square_rank(p) - chess.square_rank(their_king))
        if abs(chess.square_file(p) - kf) <= 1 and d <= 3:
            f[f"storm{d}"] += 1
    kf = chess.square_file(king)
    for fl in range(max(0, kf - 1), min(7, kf + 1) + 1):
        if not any(chess.square_file(p) == fl and rel(p) > rel(king) for p in chess.scan_forward(pawns)):
            f["open_file"] += 1
    f["rook_seventh"] += sum(1 for sq in board.pieces(chess.ROOK, us) if rel(sq) == 6)
    for kind in (chess.KNIGHT, chess.BISHOP):
        for sq in board.pieces(kind, us):
            r, fl = rel(sq), chess.square_file(sq)
            if 3 <= r <= 5 and by[chess.PAWN] & chess.BB_SQUARES[sq] and not any(
                abs(chess.square_file(p) - fl) == 1 and rel(p) > r for p in chess.scan_forward(their_pawns)
            ):
                f[f"outpost{kind}"] += 1
    for sq in board.pieces(chess.BISHOP, us):
        colour = chess.BB_LIGHT_SQUARES if chess.BB_SQUARES[sq] & chess.BB_LIGHT_SQUARES else chess.BB_DARK_SQUARES
        f["bishop_pawns"] += count(pawns & colour)
    home = sum(chess.BB_RANKS[r if us else 7 - r] for r in (1, 2, 3))
    space = CENTRE_FILES & home & ~their_by[chess.PAWN] & ~pawns
    # In sixteenths, as the engine counts it.
    f["space"] += count(space) * count(board.occupied_co[us]) / 16


def features(fen):
    """The counts, White's less Black's, split by phase: middlegame, ending."""
    board = chess.Board(fen)
    white, black = dict.fromkeys(NAMES, 0), dict.fromkeys(NAMES, 0)
    side(board, chess.WHITE, white)
    side(board, chess.BLACK, black)
    p = phase(board)
    out = []
    for n in NAMES:
        d = white[n] - black[n]
        out += [d * p, d * (1 - p)]
    return out


def main():
    labels, path = sys.argv[1], sys.argv[2]
    ridge = float(sys.argv[3]) if len(sys.argv) > 3 else 50.0
    w = fit_terms(labels, path, ridge, features, NAMES)
    with open(path, "w") as out:
        out.write("[" + ", ".join(f"[{round(w[2 * i])}, {round(w[2 * i + 1])}]" for i in range(len(NAMES))) + "]\n")


if __name__ == "__main__":
    main()
