"""``python -m actae``: the Actae command line (see actae.cli)."""

import sys

from actae.cli import main

sys.exit(main())
