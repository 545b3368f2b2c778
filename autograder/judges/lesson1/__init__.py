"""Lesson 1 (requires_grad and the graph): one judge per exercise."""
