"""What runs inside the student's kernel: trusted for nothing.

The ``check_*`` functions (``checks``) that test cells and ``exercise.check()`` call ask
the judge for scenarios (``connection``), run the student's function on each (each
exercise's ``observe.py``, in ``autograder/exercises/<name>/``, with what they share here:
``running``, ``watched``, ``inference``, ``loop``), report what happened as data, and raise the
judge's verdict as an ``AssertionError`` whose message is the feedback. While grading, the judge is a
separate process and a test cell's points depend only on what it recorded; student code
that rewrites, patches or fools anything here changes at most the message it reads.
"""
