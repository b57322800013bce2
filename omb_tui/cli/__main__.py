"""`python -m omb_tui.cli`: the same command as the installed `omb-tui` script."""

import sys

from . import main

sys.exit(main())
