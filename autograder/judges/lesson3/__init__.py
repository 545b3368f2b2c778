"""Lesson 3 (reading and zeroing .grad): one judge per exercise."""
