"""Writes labelled positions again with Kibitz's static evaluation as it is
now (after new weights or tables were written and the engine rebuilt),
keeping Fairy-Stockfish's: so that the next fit starts from the evaluation
in use without running the games again.

    python3 relabel.py VARIANT KIBITZ LABELS.csv OUT.csv
"""
import sys

from uci import Engine


def main():
    variant, kibitz, labels, out = sys.argv[1:5]
    ours = Engine([kibitz, "uci"], f"uci\nsetoption name UCI_Variant value {variant}\n")
    with open(out, "w") as f:
        for line in open(labels):
            fen, theirs, _ = line.strip().rsplit(",", 2)
            answer = ours.ask(f"position fen {fen}\neval\n", "info string evaluation")
            f.write(f"{fen},{theirs},{int(answer.split()[3])}\n")


if __name__ == "__main__":
    main()
