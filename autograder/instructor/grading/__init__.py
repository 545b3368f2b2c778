"""Running a class: ``autograder grade`` and everything it does between the command line and
the gradebook.

* ``run``: the grading of a class, the same for every backend: what to grade (``rerun``), the
  instructor's own notebook first (``self_check``), then each submission, its outcome
  recorded, feedback, the CSV export, the class report;
* the backends that grade the submissions: ``pool`` (worker processes on this machine, each
  running ``worker``) and ``dask`` (a Dask cluster's workers, each running ``worker``);
* ``worker``: one submission through nbgrader's own autograde and feedback;
* ``preflight``: the checks before anything starts (a typo is one sentence, never a write);
* ``failures``: a submission that cannot be graded: why, its log, 0 on every question;
* ``time_budget``: how long a notebook and a submission may take; ``progress``: the bar.
"""
