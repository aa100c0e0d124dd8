import sys

from poolkit.cli import main

if __name__ == "__main__":  # (not when a spawned child of poolkit imports it)
    sys.exit(main())
