"""What the lesson notebooks import: widgets, plots, Quick Checks, exercises and hints."""
