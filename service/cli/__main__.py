"""`python -m service.cli`: the `autotune` command line."""

from service.cli import main

raise SystemExit(main())
