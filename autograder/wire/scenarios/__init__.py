"""What several exercises' scenarios mean, shared by their specs, judges and observers: lesson
2's functions (``functions``), lesson 4's models as data (``models``), the training loops of
lesson 3's exercises (b) and (e) (``training_loop``)."""
