"""Lesson 4 (torch.no_grad() for inference): one judge per exercise."""
