"""nbgrader's configuration for every user of the hub (on a real hub: /etc/jupyter/nbgrader_config.py).

The exchange stays in nbgrader's default place, /usr/local/share/nbgrader/exchange (c.Exchange.root).
"""
c = get_config()  # noqa: F821  (provided by nbgrader when it loads this file)

c.CourseDirectory.course_id = "autograd-lessons"  # the course's nbgrader_config.py says the same
