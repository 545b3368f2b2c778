"""nbgrader's exchange, read from the instructor's side.

On a shared machine every student can write into the exchange's ``inbound`` folder, so all
that is there is the students' to write: the names of the folders (the student id and the
time nbgrader reads from them), their owners, their files, links and sizes, and the
``timestamp.txt`` inside.

* ``collect``: ``CheckedCollect``, nbgrader's ``collect`` that takes a submission only from
  the student who owns it, at the time it was really made, and copies only its regular files
  (``nbgrader_config.py`` names it, so ``nbgrader collect`` and formgrader's Collect button
  both use it).
* ``release_feedback``: ``CheckedReleaseFeedback``, nbgrader's ``release_feedback`` that
  releases each page on its own, only pages named after the assignment's notebooks, and
  goes on past a student whose ``submission_secret.txt`` or ``timestamp.txt`` is missing.
"""
