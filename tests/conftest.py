import os
import sys

sys.path.insert(0, os.path.dirname(__file__))
# nbgrader runs alembic (and tests run nbgrader, jupyter) from the environment pytest runs in,
# also when pytest is started without activating it
os.environ["PATH"] = os.path.dirname(sys.executable) + os.pathsep + os.environ.get("PATH", "")
