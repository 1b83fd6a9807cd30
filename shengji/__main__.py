import sys

from shengji.cli import main

sys.exit(main())
