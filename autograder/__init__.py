"""Traces and judges student PyTorch code, and drives nbgrader.

The checks that notebooks call live in :mod:`autograder.checks`; each raises an
``AssertionError`` whose message is the feedback a student reads.
"""
