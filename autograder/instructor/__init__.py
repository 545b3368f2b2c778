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

The subpackages import one way: ``grading`` → ``passes`` and ``reports``; ``passes`` →
``kernels`` → ``judging``. What several of them need is a module of this package, below
them all: ``preflight`` (the checks before a command starts, and its refusal),
``course_config`` (the course's nbgrader configuration), ``failures`` (a submission that
cannot be graded: why, its log, its 0), ``time_budget`` (how long a notebook and a
submission may take), ``server_process`` (what the judge and the fork server do for
themselves), ``printable``, ``student_ids``, ``course_secret``
(``tests/test_architecture.py`` refuses any two packages that import each other).

Nothing under ``autograder.kernel``, ``autograder.judges`` or ``autograder.wire`` imports this
package.
"""
