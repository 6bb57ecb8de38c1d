"""`python -m pipeline` runs the casefile command."""

import sys

from .cli import main

sys.exit(main())
