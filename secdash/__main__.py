import sys

from secdash.cli import main

sys.exit(main())
