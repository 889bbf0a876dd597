#!/usr/bin/env python3
"""Random-game generator backed by Fairy-Stockfish (pyffish): the rules oracle.

usage: python3 tests/fsf/gen_games.py VARIANT GAMES SEED [--fen FEN] [--max-plies N]

VARIANT is one of chess, olympic, alapawn. Plays GAMES games of uniformly random
legal moves (random.Random(SEED), choosing from the sorted move list), each at
most --max-plies plies (default 150), and prints one JSON object per position:

  {"variant", "game", "ply", "fen", "moves", "end", "result", "winner", "played"}

fen     FEN as pyffish.get_fen writes it
moves   sorted legal moves in pyffish UCI notation ([] when the game is over)
end     null, or why the game is over: checkmate, stalemate (draw), no-moves
        (alapawn A4: loss), flag (alapawn pawn on last rank), extinction
        (alapawn: no pawns left), repetition, 50-move, insufficient
result  Fairy-Stockfish's value for the side to move when over (e.g. -32000 =
        side to move lost, 0 = draw), else null
winner  "white" / "black" / "draw" under the project rules when over, else null
played  the move then played (absent on the last line of a game)

When Fairy-Stockfish and the project rules disagree about a finished game
(only possible for an Olympic repetition, see README.md), the line also carries
"fsf_winner" and "winner" follows the ruling.

Exit code 3 with "pyffish not installed" on stderr when pyffish is missing.
"""
import argparse
import json
import os
import random
import sys

try:
    import pyffish as sf
except ImportError:
    print("pyffish not installed", file=sys.stderr)
    sys.exit(3)

HERE = os.path.dirname(os.path.abspath(__file__))
VARIANTS = ("chess", "olympic", "alapawn")
OWN_VARIANTS = ("olympic", "alapawn")


def load_definitions():
    with open(os.path.join(HERE, "variants.ini")) as f:
        sf.load_variant_config(f.read())


def side_to_move(fen):
    return fen.split()[1]


def winner_from(value, stm):
    """Turn an FSF value (side-to-move point of view) into white/black/draw."""
    if value == 0:
        return "draw"
    other = "b" if stm == "w" else "w"
    side = stm if value > 0 else other
    return "white" if side == "w" else "black"


def position_key(fen):
    """Board with holdings, side to move, castling and ep fields: what FSF hashes."""
    return " ".join(fen.split()[:4])


def board_rows(fen):
    board = fen.split()[0]
    if "[" in board:
        board = board[: board.index("[")]
    return board.split("/")


def alapawn_reason(fen):
    rows = board_rows(fen)
    if "P" in rows[0] or "p" in rows[-1]:
        return "flag"
    return "extinction"


def olympic_repetition_winner(fens, in_check):
    """Ruling O6 applied to the FENs from the start up to the current one;
    in_check[i] tells whether the side to move is in check in fens[i].

    Returns None when the current position is not a third occurrence, else
    "white" or "black".
    """
    key = position_key(fens[-1])
    earlier = [i for i, f in enumerate(fens[:-1]) if position_key(f) == key]
    if len(earlier) < 2:
        return None
    prev = earlier[-1]
    # every Black move since the previous occurrence gave check: the position
    # after each such move has White to move and White in check
    black_moves_checked = []
    for i in range(prev + 1, len(fens)):
        if side_to_move(fens[i]) == "w":
            black_moves_checked.append(in_check[i])
    if black_moves_checked and all(black_moves_checked):
        return "white"
    return "black"



def end_of_game(variant, start, moves, fen, legal, fens, in_check):
    # Everything but repetition depends on the position alone, so it is asked
    # from the current FEN; the repetition check replays the whole game.
    """Return (end, fsf_value, winner, fsf_winner) for the current position."""
    stm = side_to_move(fen)

    over, value = sf.is_immediate_game_end(variant, fen, [])
    if over:
        reason = alapawn_reason(fen) if variant == "alapawn" else "immediate"
        w = winner_from(value, stm)
        return reason, value, w, w

    if not legal:
        value = sf.game_result(variant, fen, [])
        if variant == "alapawn":
            reason = "no-moves"
        else:
            reason = "checkmate" if in_check[-1] else "stalemate"
        w = winner_from(value, stm)
        return reason, value, w, w

    # Replaying the whole game is slow, so Fairy-Stockfish is asked only when
    # a repetition or the 50-move rule is possible at all: a position seen
    # three times (by a coarser key than its own: board, hands and side) or a
    # half-move clock of 100.
    coarse = " ".join(fen.split()[:2])
    seen = sum(1 for f in fens if " ".join(f.split()[:2]) == coarse)
    if seen >= 3 or int(fen.split()[4]) >= 100:
        over, value = sf.is_optional_game_end(variant, start, moves)
    else:
        over, value = False, None
    fsf_w = winner_from(value, stm) if over else None

    if variant == "olympic":
        rule_w = olympic_repetition_winner(fens, in_check)
        if over or rule_w:
            if not (over and rule_w):
                print("warning: repetition detected by only one side: fsf=%s rule=%s at %s"
                      % (over, rule_w, fen), file=sys.stderr)
            if not over:
                value = None
            return "repetition", value, rule_w or fsf_w, fsf_w
        return None, None, None, None

    if over:
        halfmove = int(fen.split()[4])
        reason = "50-move" if variant == "chess" and halfmove >= 100 else "repetition"
        return reason, value, fsf_w, fsf_w

    if variant == "chess":
        white_insufficient, black_insufficient = sf.has_insufficient_material(variant, fen, [])
        if white_insufficient and black_insufficient:
            return "insufficient", sf.VALUE_DRAW, "draw", "draw"

    return None, None, None, None


def play_game(variant, start, game, rng, max_plies, out):
    moves = []
    fens = []
    in_check = []
    fen = sf.get_fen(variant, start, [])
    for ply in range(max_plies + 1):
        fens.append(fen)
        legal = sorted(sf.legal_moves(variant, fen, []))
        # check status is needed for O6 (every Olympic position) and to tell
        # checkmate from stalemate
        needs_check = variant == "olympic" or (not legal and variant == "chess")
        in_check.append(bool(sf.gives_check(variant, fen, [])) if needs_check else None)
        end, value, winner, fsf_winner = end_of_game(variant, start, moves, fen, legal, fens, in_check)
        line = {
            "variant": variant,
            "game": game,
            "ply": ply,
            "fen": fen,
            "moves": [] if end else legal,
            "end": end,
            "result": value,
            "winner": winner,
        }
        if end and fsf_winner != winner:
            line["fsf_winner"] = fsf_winner
        if not end and ply < max_plies:
            line["played"] = rng.choice(legal)
        out.write(json.dumps(line) + "\n")
        if "played" not in line:
            return
        moves.append(line["played"])
        fen = sf.get_fen(variant, fen, [line["played"]])


def main(argv):
    parser = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    parser.add_argument("variant", choices=VARIANTS)
    parser.add_argument("games", type=int)
    parser.add_argument("seed", type=int)
    parser.add_argument("--fen", help="start position (default: pyffish.start_fen(VARIANT))")
    parser.add_argument("--max-plies", type=int, default=150)
    args = parser.parse_args(argv[1:])

    if args.variant in OWN_VARIANTS:
        load_definitions()
    start = args.fen or sf.start_fen(args.variant)
    if sf.validate_fen(start, args.variant) != sf.FEN_OK:
        print("invalid FEN for %s: %s" % (args.variant, start), file=sys.stderr)
        return 2

    rng = random.Random(args.seed)
    try:
        for game in range(args.games):
            play_game(args.variant, start, game, rng, args.max_plies, sys.stdout)
    except BrokenPipeError:
        # e.g. piped into head
        sys.stderr.close()
        return 0
    return 0


if __name__ == "__main__":
    sys.exit(main(sys.argv))
