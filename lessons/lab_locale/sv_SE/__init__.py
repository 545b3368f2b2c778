"""JupyterLab's language pack for Swedish, the course's own (PyPI has none): the JupyterLab
strings of the screens a student of the course uses (``jupyterlab.json``, ``notebook.json``;
see ``lessons.lab_locale``), declared with the ``jupyterlab.languagepack`` entry point in
``pyproject.toml``. JupyterLab lists it in Settings › Language; a string it does not hold
stays English."""
