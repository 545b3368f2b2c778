"""The instructor's side: everything that runs outside the students' kernels, grouped by what it
does (each subpackage's docstring is its map).

* ``cli``: the ``autograder`` command; it only parses and dispatches;
* ``grading``: running a class (``autograder grade``), here or on a Dask cluster, through one
  grading loop;
* ``kernels``: the fork server and the operating system's sandbox around every kernel;
* ``judging``: the judge process that decides every test cell's points, and the grader's end of it;
* ``passes``: the nbgrader passes and hooks ``nbgrader_config.py`` names (so plain
  ``nbgrader autograde`` runs them too);
* ``reports``: the class report and the course report (``autograder report``);
* ``exchange``: nbgrader's ``collect``, taking from the exchange only what each student
  submitted (``nbgrader_config.py`` names it);
* ``course``: the course in another language; ``files``: copying what a student controls
  without trusting it; ``fast_imports``: the one import every process of this side skips.

Nothing under ``autograder.kernel``, ``autograder.judges`` or ``autograder.wire`` imports this
package.
"""
