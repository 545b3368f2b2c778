"""Lesson 2 (backward()): one judge per exercise."""
