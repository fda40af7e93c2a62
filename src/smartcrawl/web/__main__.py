"""Entry point of ``python -m smartcrawl.web``."""

import sys

from smartcrawl.web.cli import main

sys.exit(main())
