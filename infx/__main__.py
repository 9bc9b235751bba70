"""`python -m infx` runs the command line."""

import sys

from infx.cli import main

sys.exit(main())
