import sys

from qkv_course.cli import main

sys.exit(main())
