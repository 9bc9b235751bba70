"""Entry point for `python -m infx.workflow`."""

import sys

from infx.cli.workflow import main

sys.exit(main())
