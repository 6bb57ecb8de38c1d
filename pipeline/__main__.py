"""`python -m pipeline` runs the casefile command."""

import sys

from .entry import run

sys.exit(run())
