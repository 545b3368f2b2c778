"""Our nbgrader passes, one per module (as nbgrader's own ``preprocessors/``), each named in
``nbgrader_config.py`` so that plain ``nbgrader autograde`` and ``autograder grade`` run the
same pipeline:

* ``judged_execute.JudgedExecute``: nbgrader's Execute in a sandboxed kernel, with the judge
  told when each test cell runs; a cell that kills or hangs the kernel costs only itself, and a
  notebook has a time budget;
* ``limit_output_size.LimitOutputSize``: no output keeps more than 100 000 characters of a text
  (nbgrader's LimitOutput counts lines, and one line can be 100 MB);
* ``apply_verdicts.ApplyVerdicts``: a test cell without the judge's pass gets an error, so
  nbgrader's own scoring gives it 0;
* ``safe_deduplicate_ids.SafeDeduplicateIds``, ``fast_check_cell_metadata.FastCheckCellMetadata``:
  nbgrader's passes with a fix and a speed-up;
* ``concise_test_errors.ConciseTestErrors``: feedback shows the diagnosis, not the hidden tests.
"""
