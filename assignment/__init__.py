"""The assignment: the handout (Markdown files here) and the labs (`python -m assignment.labs`)."""
