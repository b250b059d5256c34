"""Running the graded suite: pytest with the grader's plugin, and each test's outcome."""
