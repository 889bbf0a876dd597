"""Labels quiet positions with two static evaluations, both from White's side
in centipawns: Fairy-Stockfish's classical one (its `eval` command) and
Kibitz's (`kibitz uci`, `eval`). A position is quiet when the side to move is
not in check, has no promotion and no capture of a piece worth more than the
capturer or left undefended.

    python3 label.py FAIRY_STOCKFISH KIBITZ POSITIONS OUT.csv
"""
import sys

import chess

from uci import Engine

VALUE = {chess.PAWN: 1, chess.KNIGHT: 3, chess.BISHOP: 3, chess.ROOK: 5, chess.QUEEN: 9, chess.KING: 100}


def quiet(board):
    if board.is_check():
        return False
    for move in board.legal_moves:
        if move.promotion:
            return False
        if board.is_capture(move):
            victim = board.piece_at(move.to_square)
            worth = VALUE[victim.piece_type] if victim else 1
            if worth > VALUE[board.piece_at(move.from_square).piece_type]:
                return False
            if not board.is_attacked_by(not board.turn, move.to_square):
                return False
    return True


def main():
    fsf = Engine([sys.argv[1]])
    ours = Engine([sys.argv[2], "uci"])
    with open(sys.argv[4], "w") as out:
        for fen in open(sys.argv[3]):
            fen = fen.strip()
            if not fen or not quiet(chess.Board(fen)):
                continue
            line = fsf.ask(f"position fen {fen}\neval\n", "Final evaluation")
            try:
                theirs = round(float(line.split()[2]) * 100)
            except ValueError:  # "none (in check)"
                continue
            line = ours.ask(f"position fen {fen}\neval\n", "info string evaluation")
            mine = int(line.split()[3])
            out.write(f"{fen},{theirs},{mine}\n")


if __name__ == "__main__":
    main()
