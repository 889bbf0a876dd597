"""Labels positions again with Fairy-Stockfish's score after a search of a
fixed depth rather than its static evaluation, keeping Kibitz's: the fits
then bring Kibitz's static evaluation close to what the position turns out
to be worth, tactics and all. Positions whose search finds a mate are left
out.

    python3 search_label.py VARIANT FAIRY_STOCKFISH VARIANTS_INI LABELS.csv OUT.csv [DEPTH]

LABELS.csv holds fen,theirs,ours (selfplay.py, label.py); the output has
the same form, Fairy-Stockfish's score from White's side in centipawns.
DEPTH defaults to 10.
"""
import sys

from uci import Engine


def score(engine, fen, depth):
    """The last score a search of `depth` plies reports, from the side to
    move's view: ("cp", n) or ("mate", n)."""
    engine.p.stdin.write(f"position fen {fen}\ngo depth {depth}\n")
    engine.p.stdin.flush()
    last = None
    while True:
        line = engine.p.stdout.readline()
        if not line:
            raise RuntimeError("the engine stopped answering")
        words = line.split()
        if words[:1] == ["info"] and "score" in words:
            i = words.index("score")
            last = (words[i + 1], int(words[i + 2]))
        if words[:1] == ["bestmove"]:
            return last


def main():
    variant, fsf, variants, labels, out = sys.argv[1:6]
    depth = int(sys.argv[6]) if len(sys.argv) > 6 else 10
    setup = f"uci\nsetoption name VariantPath value {variants}\nsetoption name UCI_Variant value {variant}\n"
    engine = Engine([fsf], setup)
    with open(out, "w") as f:
        for line in open(labels):
            fen, _, ours = line.strip().rsplit(",", 2)
            found = score(engine, fen, depth)
            if found is None or found[0] != "cp":
                continue
            white = found[1] if fen.split()[1] == "w" else -found[1]
            f.write(f"{fen},{white},{ours}\n")


if __name__ == "__main__":
    main()
