"""Positions for tuning the chess evaluation: Fairy-Stockfish plays itself at
a few hundred to a few thousand nodes a move from random openings, with a
random move now and then so that unbalanced positions appear too; about every
other position is written out as a FEN.

    python3 positions.py ENGINE SEED GAMES OUT
"""
import random
import sys

import chess
import chess.engine


def main():
    engine_path, seed, games, out = sys.argv[1], int(sys.argv[2]), int(sys.argv[3]), sys.argv[4]
    rng = random.Random(seed)
    engine = chess.engine.SimpleEngine.popen_uci([engine_path])
    with open(out, "w") as f:
        for _ in range(games):
            board = chess.Board()
            for _ in range(rng.randint(4, 10)):
                moves = list(board.legal_moves)
                if not moves:
                    break
                board.push(rng.choice(moves))
            while not board.is_game_over(claim_draw=True) and board.ply() < 250:
                if rng.random() < 0.08:
                    move = rng.choice(list(board.legal_moves))
                else:
                    nodes = rng.choice([300, 1000, 3000])
                    move = engine.play(board, chess.engine.Limit(nodes=nodes)).move
                board.push(move)
                if rng.random() < 0.5:
                    f.write(board.fen() + "\n")
            f.flush()
    engine.quit()


if __name__ == "__main__":
    main()
