"""`python -m workers`: a measurement worker without the service package (workers.cli)."""

import sys

from workers.cli import main

sys.exit(main())
