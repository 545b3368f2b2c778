"""nbgrader passes and hooks: our preprocessors, one per module (as nbgrader's own
``preprocessors/``), and the hooks and exporters around them, each named in
``nbgrader_config.py`` so that plain ``nbgrader autograde`` and ``autograder grade`` run the same
pipeline. In the order a submission meets them:

* ``limit_source_size.LimitSourceSize``: no cell keeps more than 20 000 characters of source,
  no notebook more than 200 000 or 1 000 cells (rendering huge sources took gigabytes);
* ``clear_student_metadata.ClearStudentMetadata``: of a submission's metadata, only the checked
  fields the grader reads;
* ``safe_deduplicate_ids.SafeDeduplicateIds``: nbgrader's DeduplicateIds, fixed for a duplicated
  graded cell;
* ``overwrite_cells.OverwriteCellsInLanguage``: locked cells come back as the instructor wrote
  them, markdown in the notebook's language;
* ``fast_check_cell_metadata.FastCheckCellMetadata``: nbgrader's metadata check, its schema
  validated once;
* ``judged_execute.JudgedExecute``: nbgrader's Execute in a sandboxed kernel, with the judge told
  when each test cell runs, and no secret sent to the kernel; a cell that kills or hangs the
  kernel costs only itself; a notebook has a time and an output budget;
* ``limit_output_size.LimitOutputSize``: no output keeps more than 100 000 characters of a text;
* ``apply_verdicts.ApplyVerdicts``: a judged test cell's points are the judge's verdict;
* ``redraw_questions.RedrawQuestions``: a locked cell shows the grader's output, a question cell
  the student's variant drawn again outside the kernel;
* ``safe_for_pages.SafeForPages``: nothing a student wrote is live in formgrader or the feedback,
  nor typeset by MathJax, and cleaning HTML costs at most what its budget allows;
* feedback: ``concise_test_errors.ConciseTestErrors`` (the diagnosis, not the hidden tests),
  ``feedback_in_language.FeedbackInLanguage`` (nbgrader's "No response." and IPython's traceback
  headers in the notebook's language), ``clear_hidden_tests.ClearHiddenTestsOfTestCells``, ``feedback_exporter.FeedbackExporter`` (with
  ``templates/feedback_in_language``: nbgrader's page, its words in the notebook's language),
  ``templates/formgrade_inert`` (formgrader's page, MathJax kept to the instructor's markdown);
* ``hooks``: links, special and oversized files set aside before nbgrader copies a submission;
  feedback folders keep the pages only;
* ``export.CellCsvExportPlugin``: ``nbgrader export`` with every cell's scores and comments;
* ``self_check``: the instructor's own notebook through these passes before any student's
  (``autograder grade`` once per run, ``JudgedExecute`` under plain ``nbgrader autograde``).
"""
