"""Positions for fitting an evaluation (Olympic's, chess's) to game results
(see outcome_fit.py): Fairy-Stockfish (with tests/fsf/variants.ini) plays itself
at a few hundred to a few thousand nodes a move from random openings, now
and then a random move; every quiet position (not in check, no capture of a
piece worth as much as the capturer on offer) of a game that ends is
written with the game's result for White (1, 1/2 or 0) and Kibitz's static
evaluation from White's side in centipawns. The whole game is played from
its start, so that repetitions (O6) end it as the rules say.

    python3 outcomes.py olympic|chess FAIRY_STOCKFISH KIBITZ VARIANTS_INI SEED GAMES OUT.csv
"""
import random
import sys

import pyffish as sf

from selfplay import quiet
from uci import Engine


def result_for_white(value, white_to_move):
    """Fairy-Stockfish's game value for the side to move as a result for White."""
    score = 0.5 if value == 0 else 1.0 if value > 0 else 0.0
    return score if white_to_move else 1.0 - score


def play(variant, rng, player, ours):
    """One game: its quiet positions with Kibitz's evaluation, and its result
    for White (None if it did not end within 300 plies)."""
    start = sf.start_fen(variant)
    for _ in range(rng.randint(2, 6)):
        start = sf.get_fen(variant, start, [rng.choice(sf.legal_moves(variant, start, []))])
    played, sampled = [], []
    for ply in range(300):
        fen = sf.get_fen(variant, start, played)
        moves = sf.legal_moves(variant, start, played)
        ended, value = sf.is_immediate_game_end(variant, start, played)
        if ended or not moves:
            if not ended:
                value = sf.game_result(variant, start, played)
            return sampled, result_for_white(value, fen.split()[1] == "w")
        if ply > 0 and quiet(fen, moves) and not sf.gives_check(variant, fen, []):
            line = ours.ask(f"position fen {fen}\neval\n", "info string evaluation")
            sampled.append((fen, int(line.split()[3])))
        if rng.random() < 0.06:
            move = rng.choice(moves)
        else:
            nodes = rng.choice([600, 2000, 5000])
            position = f"position fen {start}" + (f" moves {' '.join(played)}" if played else "")
            move = player.ask(f"{position}\ngo nodes {nodes}\n", "bestmove").split()[1]
        played.append(move)
    return sampled, None


def main():
    variant, fsf_path, kibitz, variants, seed, games, out = sys.argv[1:8]
    sf.load_variant_config(open(variants).read())
    rng = random.Random(int(seed))
    setup = f"uci\nsetoption name VariantPath value {variants}\nsetoption name UCI_Variant value {variant}\n"
    player = Engine([fsf_path], setup)
    ours = Engine([kibitz, "uci"], setup)
    with open(out, "w") as f:
        for _ in range(int(games)):
            sampled, result = play(variant, rng, player, ours)
            if result is None:
                continue
            for fen, evaluation in sampled:
                f.write(f"{fen},{result},{evaluation}\n")
            f.flush()


if __name__ == "__main__":
    main()
