"""Entry point for `python -m infx.workflow`."""

import sys

from infx.workflow.cli import main

sys.exit(main())
