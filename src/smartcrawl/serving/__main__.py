"""``python -m smartcrawl.serving``: see :mod:`smartcrawl.serving.cli`."""

import sys

from smartcrawl.serving.cli import main

sys.exit(main())
