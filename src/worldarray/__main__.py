"""``python -m worldarray``: the ``worldarray`` command (``info``, ``check``)."""

import sys

from .cli import main

sys.exit(main())
