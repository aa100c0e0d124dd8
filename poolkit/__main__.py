import sys

from poolkit.cli import main

sys.exit(main())
