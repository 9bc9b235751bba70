"""Result rows of benchmark and eval jobs: documented schemas and the one normaliser."""
