"""The wire: everything that crosses the trust boundary between a student's kernel and the
judge, imported by both sides and by nothing else's internals.

* ``spec``: what an exercise is (``Exercise``: its name, lesson, check, answer and test cells,
  judge, kernel-side observer, messages' section); each exercise's own declaration, with what
  its scenarios mean (the objects a scenario's data describes, built the same way on both
  sides), is the ``spec.py`` of its folder, ``autograder/exercises/<name>/``, on this side of
  the boundary too, and ``autograder.exercises.CHECKS`` is the registry both sides read;
* ``scenarios``: what several exercises' scenarios share (lesson 2's functions, lesson 4's
  models, the training loops);
* ``codec``: student values as JSON data and back (never pickle);
* ``tensors``: tensors as data, and tolerant comparison;
* ``verdict``: a verdict as data (a mistake's id, a message key and its fields);
* ``variants``: the file that carries each student's variants of the generated questions
  (code and numbers, never a key) from the instructor to the student's kernel;
* ``questions``: a generated question as it is shown, the same in the kernel's question cell and
  in the grader's own drawing of it for the pages;
* ``framing``: one JSON line per message, with a size limit and attached descriptors, for
  every socket of the system (kernel and judge, grader and judge, grader and fork server,
  coordinator and workers).

``autograder.kernel`` (runs in the student's kernel) and ``autograder.judges`` (runs in the
judge) import this package, never each other (tests/test_architecture.py).
"""
