"""The course's JupyterHub side: students launched from the learning management system (LTI 1.3).

``launch`` reads what a launch's claims say (who, which lesson, which language); ``lti`` is the
authenticator and handlers ``tests/hub/jupyterhub_config.py`` names; ``roster`` keeps, per
student, the identifiers the LMS's gradebook import needs (``autograder export`` reads it).
"""
