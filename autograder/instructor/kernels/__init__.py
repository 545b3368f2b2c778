"""Grading kernels: pre-warmed, sandboxed, one per notebook.

* ``services``: the two processes a grading run starts before any kernel (the judge and the
  fork server), with an empty environment, and how workers find them;
* ``forkserver``: imports torch and the lessons once, then forks each kernel into its sandbox
  (and ``ForkProvisioner``, the kernel provisioner nbgrader's executor starts kernels with);
* ``sandbox``: the operating system's sandbox around a kernel: namespaces, a control group,
  Landlock (``sandbox.paths``: what a kernel may read), seccomp, limits;
* ``relay``: the grader's sockets reach a kernel's through a relay that counts the kernel's
  bytes before ZeroMQ keeps them, and ends a kernel that sends more than a notebook needs;
* ``protocol``: what the grader takes of each message: Jupyter's protocol, field by field, or
  a refusal, each message paid for from its notebook's budget.
"""
