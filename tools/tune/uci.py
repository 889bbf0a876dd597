"""A UCI engine as the tuning scripts talk to it: a line in, lines out until
the one wanted."""
import subprocess


class Engine:
    def __init__(self, command, setup=""):
        self.p = subprocess.Popen(command, stdin=subprocess.PIPE, stdout=subprocess.PIPE, text=True, bufsize=1)
        if setup:
            self.ask(setup + "isready\n", "readyok")

    def ask(self, text, until):
        """Sends `text` and returns the first line that starts with `until`."""
        self.p.stdin.write(text)
        self.p.stdin.flush()
        while True:
            line = self.p.stdout.readline()
            if not line:
                raise RuntimeError("the engine stopped answering")
            if line.startswith(until):
                return line
