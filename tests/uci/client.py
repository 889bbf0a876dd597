"""Drives `kibitz uci` with python-chess, as a GUI or match tool would.

    python3 tests/uci/client.py PATH/TO/kibitz

Analyses the start position to a fixed depth, then plays a few moves of a
game on a time limit, checking every answer. Exits with code 3 when
python-chess is not installed.
"""

import sys

try:
    import chess
    import chess.engine
except ImportError:
    print("python-chess not installed", file=sys.stderr)
    sys.exit(3)


def main():
    kibitz = sys.argv[1]
    engine = chess.engine.SimpleEngine.popen_uci([kibitz, "uci"], timeout=10)
    try:
        assert engine.id["name"].startswith("Kibitz"), engine.id
        assert "UCI_Variant" in engine.options and "Hash" in engine.options
        engine.configure({"Hash": 8, "Move Overhead": 10})

        board = chess.Board()
        info = engine.analyse(board, chess.engine.Limit(depth=4))
        assert info["depth"] == 4, info
        assert info["pv"] and info["pv"][0] in board.legal_moves, info
        assert info["score"].relative.score() is not None, info
        print("analysed depth", info["depth"], "pv", " ".join(m.uci() for m in info["pv"]))

        for _ in range(6):
            result = engine.play(board, chess.engine.Limit(time=0.05))
            assert result.move in board.legal_moves, (board.fen(), result.move)
            print("played", board.san(result.move))
            board.push(result.move)

        mate = chess.Board("6k1/5ppp/8/8/8/8/8/R5K1 w - - 0 1")
        info = engine.analyse(mate, chess.engine.Limit(depth=3))
        assert info["score"].relative == chess.engine.Mate(1), info
        assert info["pv"][0] == chess.Move.from_uci("a1a8"), info
    finally:
        engine.quit()


if __name__ == "__main__":
    main()
