"""The catalogues of student solutions for lessons 1-4's function exercises (each exercise's
own, ``autograder/exercises/<name>/catalogue.py``), lesson by lesson, with the verdict each must
get (``catalogue.Entry``); the training loops' are ``catalogue.TRAIN_LOOP`` and
``TRAIN_ACCUMULATE``.
"""
from __future__ import annotations

from catalogue import entries

LESSON1 = entries("freeze_body")
LESSON2 = entries("derivative") + entries("numerical_grad") + entries("weighted_grad") + entries("value_backward")
LESSON3 = entries("fit_line") + entries("dead_parameters")
LESSON4 = entries("predict") + entries("sgd_step") + entries("evaluate")
