"""What the instructor runs: ``autograder grade`` and the pieces around nbgrader.

* ``grade``, ``pool``, ``worker``, ``cli``: a class graded in parallel through nbgrader's
  own autograde, with a progress bar, feedback and the CSV export; ``cluster``: the same on a
  Dask cluster; ``rerun``: a rerun grades only what is missing or changed;
* ``services``, ``judge_server``, ``judge_client``, ``test_cells``: the judge process that
  decides every test cell's points, started before any kernel, never running student code;
* ``forkserver``, ``sandbox``: pre-warmed kernels, each in the operating system's sandbox;
* ``preprocessors``, ``hooks``, ``feedback_exporter``: nbgrader passes and hooks, set in
  ``nbgrader_config.py`` so that plain ``nbgrader autograde`` runs them too;
* ``files``, ``failures``, ``summary``, ``progress``: safe copies, submissions that cannot be
  graded, the class's common mistakes, the progress bar;
* ``preflight``: the checks before a command starts anything (a typo is one sentence, never a write);
* ``report``: the class report per assignment and the course report (self-contained HTML).

Nothing under ``autograder.kernel`` or ``autograder.judges`` imports this package.
"""
