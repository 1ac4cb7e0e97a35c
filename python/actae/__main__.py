"""``python -m actae``: the Actae command line (see actae.cli)."""

import sys

from actae.cli.main import main

sys.exit(main())
