#!/usr/bin/env python3
"""Perft over pyffish, with the project's rule that a finished game has no moves (G5).

usage: python3 tests/fsf/perft.py VARIANT DEPTH [FEN]   (FEN defaults to the start position)
       python3 tests/fsf/perft.py --check                 (runs the reference numbers)
"""
import os
import sys

try:
    import pyffish as sf
except ImportError:
    print("pyffish not installed", file=sys.stderr)
    sys.exit(3)

HERE = os.path.dirname(os.path.abspath(__file__))
sf.load_variant_config(open(os.path.join(HERE, "variants.ini")).read())


def game_over(variant, fen):
    """True when the game is over in `fen` for reasons other than having no moves."""
    over, _ = sf.is_immediate_game_end(variant, fen, [])
    if over:
        return True
    # claims: repetition needs history, so only the n-move rule can fire here
    over, _ = sf.is_optional_game_end(variant, fen, [])
    if over:
        return True
    if variant == "chess":
        white, black = sf.has_insufficient_material(variant, fen, [])
        if white and black:
            return True
    return False


def moves_of(variant, fen):
    if game_over(variant, fen):
        return []
    return sf.legal_moves(variant, fen, [])


def perft(variant, fen, depth):
    if depth == 0:
        return 1
    moves = moves_of(variant, fen)
    if depth == 1:
        return len(moves)
    return sum(perft(variant, sf.get_fen(variant, fen, [m]), depth - 1) for m in moves)


CHECKS = [
    ("olympic", None, [14, 180, 2464, 34189]),
    ("olympic", "r1s1k/2g1p/2P2/1B3/K1G1R[Sb] w - - 0 1", [5, 134, 2207]),
    ("alapawn", None, [26, 676, 18662]),
    ("chess", None, [20, 400, 8902]),
]


def main(argv):
    if argv[1:2] == ["--check"]:
        ok = True
        for variant, fen, want in CHECKS:
            fen = fen or sf.start_fen(variant)
            got = [perft(variant, fen, d) for d in range(1, len(want) + 1)]
            print(variant, fen, got, "OK" if got == want else "MISMATCH want %s" % want)
            ok &= got == want
        return 0 if ok else 1
    variant, depth = argv[1], int(argv[2])
    fen = argv[3] if len(argv) > 3 else sf.start_fen(variant)
    print(perft(variant, fen, depth))
    return 0


if __name__ == "__main__":
    sys.exit(main(sys.argv))
