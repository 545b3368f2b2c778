"""The judge service: the process that decides every test cell's points, where no student code
runs.

* ``server``: the judge process (sessions per notebook, a thread per kernel connection, its
  budgets), deciding with ``autograder.judges``;
* ``client``: the grader's side: open a session, hand a kernel its socket, mark each test
  cell's begin, seal and end, collect the verdicts;
* ``cells``: what each test cell of the instructor's notebook requires, read from its code
  (and the code a kernel may see of it, without its secrets).

It imports nothing of ``kernels`` (whose services start the judge): what a server does for
itself, listen and end with its parent, is ``server_process``'s.
"""
