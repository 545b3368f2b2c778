"""Every user's Jupyter server on the hub (on a real hub: /etc/jupyter/jupyter_server_config.py).

jupyterhub_config.py puts this folder on JUPYTER_CONFIG_PATH, after the role's own
configuration (lessons/lab_config/<role>). Formgrader in the instructor's JupyterLab needs
nothing here: the instructor's configuration lets their server be framed by its own origin
(lessons/lab.py), which JupyterHub 4.1 and later forbids otherwise.
"""

c = get_config()  # noqa: F821  (provided by Jupyter when it loads this file)

# A terminal starts an interactive shell, not a login shell: a login shell reads /etc/profile,
# which resets PATH, and `autograder` or `nbgrader` would no longer be found.
c.ServerApp.terminado_settings = {"shell_command": ["/bin/bash"]}
