"""What the instructor reads after grading.

* ``pages``: the class report of an assignment and the course report (self-contained HTML,
  from Jinja templates with autoescaping, ``templates/``);
* ``summary``: the class's most common mistakes, from the verdicts in the autograded notebooks.
"""
