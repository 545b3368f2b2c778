"""Running a class: ``autograder grade`` and everything it does between the command line and
the gradebook.

* ``run``: the grading of a class, the same for every backend: what to grade (``rerun``), the
  instructor's own notebook first (``passes.self_check``), then each submission, its outcome
  recorded, feedback, the CSV export, the class report;
* the backends that grade the submissions: ``local`` (``pool``: worker processes on this
  machine, each running ``worker``) and ``dask`` (a Dask cluster's workers, each running
  ``worker``, with one judge and fork server per machine: ``machine``);
* ``worker``: one submission through nbgrader's own autograde and feedback, and what is written
  for a submission that is not graded (``worker.refuse``), the export and the class report;
* ``worker_memory``: how much memory a grading process may use; ``progress``: the bar.

Of the instructor's packages it is the top: it imports ``passes``, ``reports`` and
``kernels``, and none of them imports it. What they share with it is below them all: the
checks before anything starts (``instructor.preflight``), the course's configuration
(``course_config``), a submission that cannot be graded (``failures``), how long grading
may take (``time_budget``).
"""
