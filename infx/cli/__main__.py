"""`python -m infx.cli` runs the command line, as `python -m infx` does."""

import sys

from infx.cli import main

if __name__ == "__main__":
    sys.exit(main())
