"""Grading kernels: pre-warmed, sandboxed, one per notebook.

* ``services``: the two processes a grading run starts before any kernel (the judge and the
  fork server), with an empty environment, and how workers find them;
* ``forkserver``: imports torch and the lessons once, then forks each kernel into its sandbox
  (and ``ForkProvisioner``, the kernel provisioner nbgrader's executor starts kernels with);
* ``sandbox``: the operating system's sandbox around a kernel: namespaces, a control group,
  Landlock (``sandbox.paths``: what a kernel may read), seccomp, limits.
"""
