"""Labelled positions for tuning the evaluation of Olympic or Alapawn:
Fairy-Stockfish (with tests/fsf/variants.ini) plays itself at a few hundred
to a few thousand nodes a move from random openings, now and then a random
move; about every other quiet position (not in check, no capture of a piece
worth as much as the capturer) is written with both static evaluations,
Fairy-Stockfish's and Kibitz's, from White's side in centipawns.

    python3 selfplay.py olympic|alapawn FAIRY_STOCKFISH KIBITZ VARIANTS_INI SEED GAMES OUT.csv
"""
import random
import sys

import pyffish as sf

from uci import Engine

# Rough worth of each letter, to tell a capture that wins material.
WORTH = {"p": 1, "n": 3, "s": 3, "g": 4, "b": 4, "r": 5, "q": 9, "k": 100}


def board(fen):
    """Square name -> piece letter (upper case White)."""
    squares = {}
    rows = fen.split("[")[0].split()[0].split("/")
    for i, row in enumerate(rows):
        file = 0
        for ch in row:
            if ch.isdigit():
                file += int(ch)
            elif ch != "+":
                squares["abcdefgh"[file] + str(len(rows) - i)] = ch
                file += 1
    return squares


def quiet(fen, moves):
    squares = board(fen)
    for m in moves:
        if "@" in m or m[2:4] not in squares:
            continue
        if WORTH[squares[m[2:4]].lower()] >= WORTH[squares[m[:2]].lower()]:
            return False
    return True


def main():
    variant, fsf_path, kibitz, variants, seed, games, out = sys.argv[1:8]
    sf.load_variant_config(open(variants).read())
    rng = random.Random(int(seed))
    setup = f"uci\nsetoption name VariantPath value {variants}\nsetoption name UCI_Variant value {variant}\n"
    player, judge = Engine([fsf_path], setup), Engine([fsf_path], setup)
    ours = Engine([kibitz, "uci"], setup)
    with open(out, "w") as f:
        for _ in range(int(games)):
            fen = sf.start_fen(variant)
            for _ in range(rng.randint(2, 6)):
                moves = sf.legal_moves(variant, fen, [])
                if not moves:
                    break
                fen = sf.get_fen(variant, fen, [rng.choice(moves)])
            for ply in range(200):
                moves = sf.legal_moves(variant, fen, [])
                if not moves or sf.is_immediate_game_end(variant, fen, [])[0]:
                    break
                if ply > 0 and rng.random() < 0.5 and quiet(fen, moves):
                    line = judge.ask(f"position fen {fen}\neval\n", "Final evaluation")
                    try:
                        theirs = round(float(line.split()[2]) * 100)
                    except ValueError:  # "none (in check)"
                        theirs = None
                    if theirs is not None:
                        line = ours.ask(f"position fen {fen}\neval\n", "info string evaluation")
                        f.write(f"{fen},{theirs},{int(line.split()[3])}\n")
                if rng.random() < 0.06:
                    move = rng.choice(moves)
                else:
                    nodes = rng.choice([500, 2000, 6000])
                    move = player.ask(f"position fen {fen}\ngo nodes {nodes}\n", "bestmove").split()[1]
                fen = sf.get_fen(variant, fen, [move])
            f.flush()


if __name__ == "__main__":
    main()
