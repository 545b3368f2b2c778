"""Traces and judges student PyTorch code, and drives nbgrader.

Three parts, split by what they may trust:

* ``autograder.kernel``: imported inside the student's kernel, where student code runs
  and can change anything. The ``check_*`` functions the test cells call, the tracer
  of training loops and the diagnosis that names a mistake. It only explains and
  reports data; it decides nothing.
* ``autograder.judges``: pure functions from data (scenarios, observations, answers) to
  verdicts: what the exercises' judges share.
* ``autograder.exercises``: one folder per exercise with everything that is its own, each
  file on one side: its declaration (``spec.py``, the wire's), its judge (``judge.py``), its
  kernel-side observer (``observe.py``), its words in every language (``locale/``) and its
  catalogue of solutions; and the registry of them all.
* ``autograder.instructor``: what the instructor runs: ``autograder grade``, the judge
  process that decides points with ``judges``, the fork server and the operating
  system's sandbox around every kernel, the nbgrader passes.

``kernel`` imports ``judges`` (a student's own check gives the judge's verdict at once);
``instructor`` imports both; neither ``kernel`` nor ``judges`` imports ``instructor``.
The words every part shows live in ``locale/<lang>.toml`` (``messages``).
"""
